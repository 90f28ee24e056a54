import type pg from 'pg';
import { emailArgs, emailInsertSql } from '../sql/customer-emails.js';
import { insertInvoiceSql, takeInvoiceNumberCte } from '../sql/documents.js';
import { outcomeRow } from '../sql/pay.js';
import { EVENT_COLUMNS, eventArgs, eventSelect } from '../sql/outbox.js';
import type { Acceptance, Accepted, ChargeOutcome, OutcomeRecorded, SandboxPaid, TransactionRow } from '../store.js';
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

/** The idempotency key as the CTE `k` of a chain that begins with it (the acceptance, a new PAY). */
const KEY_CTE = `k AS (
  INSERT INTO idempotency_keys (merchant_id, scope, request_id, request_hash, resource_id, created_at)
  VALUES (@${K}merchantId, @${K}scope, @${K}requestId, @${K}requestHash, @${K}resourceId, @${K}now)
  ON CONFLICT DO NOTHING RETURNING 1
)`;

/**
 * The key first: a concurrent duplicate's INSERT waits on the first one's uncommitted key and then
 * does nothing, so exactly one statement per requestId writes a row, on any number of instances.
 * The row only if the key was written; a relationId already taken fails the whole statement on
 * the transactions_merchant_relation unique index, so neither is written.
 */
const ACCEPT = `WITH ${KEY_CTE}, t AS (
  INSERT INTO transactions (${TXN.columns}) SELECT ${TXN.params} WHERE EXISTS (SELECT 1 FROM k) RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM t) AS accepted`;

export async function acceptTransaction(pool: pg.Pool, a: Acceptance): Promise<Accepted> {
  try {
    const r = await write<{ accepted: boolean }>(pool, ACCEPT, prefixed(T, a.row, prefixed(K, a.key)));
    return r?.accepted ? 'accepted' : 'seen';
  } catch (e) {
    if (isRelationTaken(e)) return 'relation';
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
  return `WITH ch AS (
  INSERT INTO sandbox_charges (${CHARGE.columns}) VALUES (${CHARGE.params})
  ON CONFLICT (idempotency_key) DO NOTHING RETURNING 1
), t AS (
  UPDATE transactions SET ${setList(keys, P)}
  WHERE id = @id AND status = @fromStatus AND EXISTS (SELECT 1 FROM ch)
  RETURNING ${selectList(transactions)}
)${chainTail(o)}
SELECT EXISTS (SELECT 1 FROM ch) AS "entered__", t.* FROM (SELECT 1) AS one LEFT JOIN t ON true`;
}

/** After `t`, the transaction as the outcome leaves it: the invoice, receipt and callback parts. */
function chainTail(o: ChargeOutcome): string {
  const inv = o.invoice ? invoiceSql(o.invoice.receipt !== undefined) : '';
  const select = o.invoice ? eventSelect(E, 'inv', withNumber(`${E}payload`, true)) : eventSelect(E, 't');
  return `${inv}${o.event ? `, ev AS (INSERT INTO outbox_events (${EVENT_COLUMNS}) ${select})` : ''}`;
}

/**
 * A new sandbox PAY as ONE statement, where it was the two above (acceptance, then outcome): the
 * sandbox decides from the card alone, so the row is inserted as the outcome leaves it and nothing
 * has to update what the statement inserts (a statement's parts do not see each other's rows). `k`
 * and `t` are the acceptance's, gated the same way; `ch` the ledger entry, only if `t` wrote (its
 * key is this new transaction's id, so a conflict is an error, not a silent skip); then the
 * invoice, receipt and callback as in the outcome. One commit per PAY where there were two, no
 * UPDATE, and the charge commits with its acceptance or not at all (as SQLite's one unit of work).
 *
 * In a batch of its merchant's paid PAYs (merchant-batches.ts) it is split in two: the body (the
 * key, the row, the ledger entry) and the numbered part (the number, invoice, receipt and
 * callback, gated on the row existing: a new id exists only if this transaction inserted it).
 * Every body of the batch is sent before any numbered part, so the merchant's row, held to the
 * commit, is held only for the numbered parts and the commit, and another process's batch for
 * the same merchant writes its bodies meanwhile. And no transaction waits for a key while it holds
 * a merchant's row (alone, `k` comes before `n`), which keeps a batch and a duplicate of one of
 * its requestIds on another instance from deadlocking.
 */
const PAY_BODY = `WITH ${KEY_CTE}, t AS (
  INSERT INTO transactions (${TXN.columns}) SELECT ${TXN.params} WHERE EXISTS (SELECT 1 FROM k)
  RETURNING ${selectList(transactions)}
), ch AS (
  INSERT INTO sandbox_charges (${CHARGE.columns}) SELECT ${CHARGE.params} WHERE EXISTS (SELECT 1 FROM t) RETURNING 1
)`;
const ANSWER = `
SELECT EXISTS (SELECT 1 FROM ch) AS "entered__", t.* FROM (SELECT 1) AS one LEFT JOIN t ON true`;
const PAY_BODY_ANSWERED = `${PAY_BODY}${ANSWER}`;

const payTexts = new Map<string, { whole: string; numbered: string }>();

/** One pair of texts per shape (invoice, receipt, event): built once, then looked up. */
function paySql(o: ChargeOutcome): { whole: string; numbered: string } {
  const shape = `${o.invoice ? (o.invoice.receipt !== undefined ? 2 : 1) : 0}|${o.event ? 1 : 0}`;
  let texts = payTexts.get(shape);
  if (texts === undefined) {
    texts = {
      whole: `${PAY_BODY}${chainTail(o)}${ANSWER}`,
      numbered: `WITH t AS (SELECT 1 FROM transactions WHERE id = @${T}id)${chainTail(o)}\nSELECT 1`,
    };
    payTexts.set(shape, texts);
  }
  return texts;
}

/** A statement and its parameters. */
export interface Stmt {
  sql: string;
  args: Record<string, unknown>;
}

/**
 * A write of this file, and the merchant whose number it takes, if it takes one. Alone it is
 * `whole`, one statement. In a batch of its merchant's writes it is `split` when it has a split:
 * its `before` is sent with the batch's other `before`s, ahead of every statement that takes the
 * merchant's row.
 */
export interface Chain {
  merchantId: string | undefined;
  whole: Stmt;
  split?: { before: Stmt; numbered: Stmt };
}

export type ChainRow = TransactionRow & { entered__: boolean };

/** How a chain is written: alone or batched with its merchant's (merchant-batches.ts). */
export type WriteChain = (c: Chain) => Promise<ChainRow | undefined>;

export async function recordSandboxOutcome(write: WriteChain, o: ChargeOutcome): Promise<OutcomeRecorded> {
  const keys = patchKeys(transactions, o.patch);
  const args = chainArgs(o, prefixed(P, o.patch));
  args.id = o.transactionId;
  args.fromStatus = o.from;
  return recorded(await write({ whole: { sql: outcomeSql(keys, o), args }, merchantId: o.invoice?.row.merchantId }));
}

export async function payOnSandbox(write: WriteChain, a: Acceptance, o: ChargeOutcome): Promise<SandboxPaid> {
  const args = chainArgs(o, prefixed(T, outcomeRow(a.row, o.patch), prefixed(K, a.key)));
  const texts = paySql(o);
  const chain: Chain = { whole: { sql: texts.whole, args }, merchantId: o.invoice?.row.merchantId };
  if (o.invoice) chain.split = { before: { sql: PAY_BODY_ANSWERED, args }, numbered: { sql: texts.numbered, args } };
  try {
    const r = recorded(await write(chain));
    return r.row ? { accepted: 'accepted', recorded: r } : { accepted: 'seen' };
  } catch (e) {
    if (isRelationTaken(e)) return { accepted: 'relation' };
    throw e;
  }
}

/** One chain alone: an autocommit statement. */
export function writeChain(pool: pg.Pool, c: Chain): Promise<ChainRow | undefined> {
  return write<ChainRow>(pool, c.whole.sql, c.whole.args);
}

/**
 * Several chains in one transaction, their statements sent one after another without waiting
 * (merchant-batches.ts: one merchant's paid PAYs, one lock and one commit for all): every
 * `before` first, then every statement that takes the merchant's row. A chain answers with its
 * first statement's row.
 */
export function writeChains(pool: pg.Pool, cs: readonly Chain[]): Promise<(ChainRow | undefined)[]> {
  return withTransaction(pool, (tx) => {
    const before = cs.map((c) =>
      c.split ? get<ChainRow>(tx.conn, c.split.before.sql, c.split.before.args) : undefined,
    );
    const numbered = cs.map((c) => {
      const s = c.split?.numbered ?? c.whole;
      return get<ChainRow>(tx.conn, s.sql, s.args);
    });
    return Promise.all(
      cs.map(async (c, i) => {
        const [first, last] = await Promise.all([before[i], numbered[i]]);
        return c.split ? first : last;
      }),
    );
  });
}

/** The parameters a chain's ledger entry, invoice, receipt and event take, added to `args`. */
function chainArgs(o: ChargeOutcome, args: Record<string, unknown>): Record<string, unknown> {
  prefixed(C, o.entry, args);
  if (o.event) Object.assign(args, eventArgs(o.event, E).args);
  if (o.invoice) {
    prefixed(I, o.invoice.row, args);
    args.mark = o.invoice.marker;
    args.markJson = JSON.stringify(o.invoice.marker);
  }
  if (o.invoice?.receipt) Object.assign(args, emailArgs(o.invoice.receipt, M).args);
  return args;
}

function recorded(r: ChainRow | undefined): OutcomeRecorded {
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

/** The merchant's relationId is taken: the statement failed on its unique index, nothing written. */
function isRelationTaken(e: unknown): boolean {
  return (
    sqlState(e) === UNIQUE_VIOLATION &&
    (e as { constraint?: unknown } | null)?.constraint === 'transactions_merchant_relation'
  );
}
