import type pg from 'pg';
import { emailArgs, emailInsertSql } from '../sql/customer-emails.js';
import { insertInvoiceSql, takeInvoiceNumberCte } from '../sql/documents.js';
import { EVENT_COLUMNS, eventArgs, eventSelect } from '../sql/outbox.js';
import type { Acceptance, Accepted, ChargeOutcome, OutcomeRecorded, TransactionRow } from '../store.js';
import { sandboxCharges, transactions } from '../tables/index.js';
import { patchKeys, prefixed, rowValues, selectList, setList } from '../tables/rows.js';
import { isConnectionLost, PgConnectionLostError, sqlState, UNIQUE_VIOLATION } from './errors.js';
import { get } from './query.js';
import { withTransaction } from './transaction.js';

/**
 * A PAY's two writes, each ONE autocommit statement (a data-modifying CTE chain): no BEGIN, no
 * COMMIT, no lock taken apart from the rows written, one round trip each. Every part of a chain
 * runs only if the part before it wrote its row, so the chain is what the units of work in
 * sql/pay.ts are, and commits (synchronous_commit on) as one.
 *
 * An approved charge's invoice and receipt join the outcome's chain (invoiceSql): still one
 * statement, the number taken in the same commit as the outcome (src/store/README.md, "A PAY's
 * statements").
 */

const K = 'k_';
const T = 't_';
const C = 'c_';
const P = 'p_';
const E = 'e_';

const TXN = rowValues(transactions, T);
const CHARGE = rowValues(sandboxCharges, C);

/**
 * The key first: a concurrent duplicate's INSERT waits on the first one's uncommitted key and then
 * does nothing, so exactly one statement per requestId writes a row, on any number of instances.
 * The row only if the key was written; a relationId already taken fails the whole statement on
 * the transactions_merchant_relation unique index, so neither is written.
 */
const ACCEPT = `WITH k AS (
  INSERT INTO idempotency_keys (merchant_id, scope, request_id, request_hash, resource_id, created_at)
  VALUES (@${K}merchantId, @${K}scope, @${K}requestId, @${K}requestHash, @${K}resourceId, @${K}now)
  ON CONFLICT DO NOTHING RETURNING 1
), t AS (
  INSERT INTO transactions (${TXN.columns}) SELECT ${TXN.params} WHERE EXISTS (SELECT 1 FROM k) RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM t) AS accepted`;

export async function acceptTransaction(pool: pg.Pool, a: Acceptance): Promise<Accepted> {
  try {
    const r = await write<{ accepted: boolean }>(pool, ACCEPT, prefixed(T, a.row, prefixed(K, a.key)));
    return r?.accepted ? 'accepted' : 'seen';
  } catch (e) {
    if (sqlState(e) === UNIQUE_VIOLATION && constraintOf(e) === 'transactions_merchant_relation') return 'relation';
    throw e;
  }
}

const I = 'i_';
const M = 'm_';

/** `@<p>name` with the chain's invoice number in place of the marker (OutcomeInvoice). */
const withNumber = (param: string, json: boolean): string =>
  json
    ? `replace(CAST(@${param} AS TEXT), CAST(@markJson AS TEXT), CAST(to_json(inv.number) AS TEXT))`
    : `replace(CAST(@${param} AS TEXT), CAST(@mark AS TEXT), inv.number)`;

/**
 * `n` takes the merchant's number only if `t` moved the transaction, `inv` writes the invoice
 * with it, `em` the receipt (the merchant's switches checked as enqueueEmail does); the event
 * then reads `inv` for the number. The merchant's row stays locked until this statement commits,
 * so concurrent PAYs on any instance queue for their numbers and none is skipped.
 */
function invoiceSql(receipt: boolean): string {
  const em = receipt
    ? `, em AS (${emailInsertSql(M, {
        from: 'inv',
        dedupeKey: withNumber(`${M}dedupeKey`, false),
        details: withNumber(`${M}details`, true),
      })})`
    : '';
  return `, n AS (${takeInvoiceNumberCte(`${I}merchantId`, 'EXISTS (SELECT 1 FROM t)')}),
inv AS (${insertInvoiceSql(I)} FROM n RETURNING number)${em}`;
}

const outcomeTexts = new Map<string, string>();

/** One text per shape (the patch's keys, invoice, receipt, event): built once, then looked up. */
function outcomeSql(keys: readonly string[], o: ChargeOutcome): string {
  const shape = `${keys.join(',')}|${o.invoice ? (o.invoice.receipt !== undefined ? 2 : 1) : 0}|${o.event ? 1 : 0}`;
  let text = outcomeTexts.get(shape);
  if (text === undefined) {
    text = buildOutcomeSql(keys, o);
    outcomeTexts.set(shape, text);
  }
  return text;
}

function buildOutcomeSql(keys: readonly string[], o: ChargeOutcome): string {
  const inv = o.invoice ? invoiceSql(o.invoice.receipt !== undefined) : '';
  const select = o.invoice ? eventSelect(E, 'inv', withNumber(`${E}payload`, true)) : eventSelect(E, 't');
  const ev = o.event ? `, ev AS (INSERT INTO outbox_events (${EVENT_COLUMNS}) ${select})` : '';
  return `WITH ch AS (
  INSERT INTO sandbox_charges (${CHARGE.columns}) VALUES (${CHARGE.params})
  ON CONFLICT (idempotency_key) DO NOTHING RETURNING 1
), t AS (
  UPDATE transactions SET ${setList(keys, P)}
  WHERE id = @id AND status = @fromStatus AND EXISTS (SELECT 1 FROM ch)
  RETURNING ${selectList(transactions)}
)${inv}${ev}
SELECT EXISTS (SELECT 1 FROM ch) AS "entered__", t.* FROM (SELECT 1) AS one LEFT JOIN t ON true`;
}

export async function recordSandboxOutcome(pool: pg.Pool, o: ChargeOutcome): Promise<OutcomeRecorded> {
  return recorded(await write<OutcomeRow>(pool, ...outcomeStatement(o)));
}

/**
 * Several outcomes in one transaction, their statements sent one after another without waiting
 * (outcome-batches.ts: one merchant's paid PAYs, one lock and one commit for all).
 */
export function recordSandboxOutcomes(pool: pg.Pool, os: readonly ChargeOutcome[]): Promise<OutcomeRecorded[]> {
  return withTransaction(pool, (tx) =>
    Promise.all(os.map(async (o) => recorded(await get<OutcomeRow>(tx.conn, ...outcomeStatement(o))))),
  );
}

type OutcomeRow = TransactionRow & { entered__: boolean };

function outcomeStatement(o: ChargeOutcome): [string, Record<string, unknown>] {
  const keys = patchKeys(transactions, o.patch);
  const receipt = o.invoice?.receipt;
  const args = prefixed(P, o.patch, prefixed(C, o.entry));
  if (o.event) Object.assign(args, eventArgs(o.event, E).args);
  if (o.invoice) {
    prefixed(I, o.invoice.row, args);
    args.mark = o.invoice.marker;
    args.markJson = JSON.stringify(o.invoice.marker);
  }
  if (receipt) Object.assign(args, emailArgs(receipt, M).args);
  args.id = o.transactionId;
  args.fromStatus = o.from;
  return [outcomeSql(keys, o), args];
}

function recorded(r: OutcomeRow | undefined): OutcomeRecorded {
  if (!r?.entered__) return { entered: false };
  const { entered__: _, ...row } = r;
  return row.id === null ? { entered: true } : { entered: true, row };
}

/** A write is never rerun after a lost connection: whether it committed cannot be known here. */
async function write<R>(pool: pg.Pool, sql: string, args: Record<string, unknown>): Promise<R | undefined> {
  try {
    return await get<R>(pool, sql, args);
  } catch (e) {
    if (isConnectionLost(e)) throw new PgConnectionLostError('unknown', e);
    throw e;
  }
}

function constraintOf(e: unknown): string | undefined {
  const c = (e as { constraint?: unknown } | null)?.constraint;
  return typeof c === 'string' ? c : undefined;
}
