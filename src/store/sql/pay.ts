import type {
  Acceptance,
  Accepted,
  ChargeOutcome,
  NewEvent,
  OutcomeInvoice,
  OutcomeRecorded,
  SandboxPaid,
  Store,
  TransactionRow,
  Tx,
} from '../store.js';

/**
 * A PAY's writes as units of work of the engine (SQLite: its group-commit writer runs each alone,
 * so the reads here decide for good). PostgreSQL writes each as one statement instead
 * (postgres/pay.ts); both answer the same.
 */
export function acceptInUnit(store: Store, a: Acceptance): Promise<Accepted> {
  return store.transaction((tx) => accept(tx, a));
}

export function recordOutcomeInUnit(store: Store, o: ChargeOutcome): Promise<OutcomeRecorded> {
  return store.transaction((tx) => record(tx, o));
}

/**
 * Both in one unit of work: one commit where there were two. The row is inserted as the outcome
 * leaves it (the sandbox decided before anything is written), so there is no UPDATE of the row
 * just inserted and no reading it back, as in postgres/pay.ts's one statement.
 */
export function payOnSandboxInUnit(store: Store, a: Acceptance, o: ChargeOutcome): Promise<SandboxPaid> {
  return store.transaction(async (tx): Promise<SandboxPaid> => {
    const row = outcomeRow(a.row, o.patch);
    const accepted = await accept(tx, { key: a.key, row });
    if (accepted !== 'accepted') return { accepted };
    // Its key is this new transaction's id: taken, it is an error (the unit is undone), not a skip.
    if (!(await tx.insertSandboxCharge(o.entry)))
      throw new Error(`sandbox ledger key ${o.entry.idempotencyKey} is already taken`);
    const event = o.invoice ? await issueWith(tx, o.invoice, o.event) : o.event;
    if (event) await tx.enqueueEvent(event);
    return { accepted, recorded: { entered: true, row } };
  });
}

/** A new transaction's row as its outcome leaves it; a patch's undefined means "leave as is". */
export function outcomeRow(row: TransactionRow, patch: ChargeOutcome['patch']): TransactionRow {
  const out: Record<string, unknown> = { ...row };
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) out[k] = v;
  return out as unknown as TransactionRow;
}

async function accept(tx: Tx, { key, row }: Acceptance): Promise<Accepted> {
  if (await tx.getIdempotency(key.merchantId, key.scope, key.requestId)) return 'seen';
  if (row.relationId !== null && (await tx.getTransactionByRelation(row.merchantId, row.relationId))) return 'relation';
  await tx.insertTransaction(row);
  await tx.insertIdempotency(key);
  return 'accepted';
}

async function record(tx: Tx, o: ChargeOutcome): Promise<OutcomeRecorded> {
  if (!(await tx.insertSandboxCharge(o.entry))) return { entered: false };
  if (!(await tx.updateTransactionIf(o.transactionId, o.from, o.patch))) return { entered: true };
  const event = o.invoice ? await issueWith(tx, o.invoice, o.event) : o.event;
  if (event) await tx.enqueueEvent(event);
  return { entered: true, row: await tx.getTransaction(o.transactionId) };
}

/** The invoice and its receipt, as postgres/pay.ts's chain writes them; the event with the number in place. */
async function issueWith(tx: Tx, inv: OutcomeInvoice, event: NewEvent | undefined): Promise<NewEvent | undefined> {
  const number = await tx.issueInvoice(inv.row);
  if (number === undefined)
    throw new Error(`merchant ${inv.row.merchantId} of transaction ${inv.row.transactionId} is missing`);
  const put = (v: unknown): unknown => (v === inv.marker ? number : v);
  if (inv.receipt) {
    const { dedupeKey, details } = inv.receipt;
    await tx.enqueueEmail({
      ...inv.receipt,
      dedupeKey: dedupeKey?.split(inv.marker).join(number) ?? null,
      details: Object.fromEntries(Object.entries(details).map(([k, v]) => [k, put(v)])),
    });
  }
  if (!event) return undefined;
  const body = Object.fromEntries(Object.entries(event.body).map(([k, v]) => [k, v === inv.marker ? number : v]));
  return { ...event, body };
}
