import type pg from 'pg';
import { EVENT_COLUMNS, eventArgs, eventSelect } from '../sql/outbox.js';
import type { Acceptance, Accepted, ChargeOutcome, OutcomeRecorded, TransactionRow } from '../store.js';
import { sandboxCharges, transactions } from '../tables/index.js';
import { patchKeys, prefixed, rowValues, selectList, setList } from '../tables/rows.js';
import { isConnectionLost, PgConnectionLostError, sqlState, UNIQUE_VIOLATION } from './errors.js';
import { get } from './query.js';

/**
 * A PAY's two writes, each ONE autocommit statement (a data-modifying CTE chain): no BEGIN, no
 * COMMIT, no lock taken apart from the rows written, one round trip each. Every part of a chain
 * runs only if the part before it wrote its row, so the chain is what the units of work in
 * sql/pay.ts are, and commits (synchronous_commit on) as one.
 *
 * Adding a write to the outcome (an invoice with its number, say) is one more CTE that reads
 * `t`, e.g. `n AS (UPDATE merchants SET next_invoice_number = next_invoice_number + 1 WHERE id =
 * @merchantId AND EXISTS (SELECT 1 FROM t) RETURNING next_invoice_number - 1 AS number),
 * inv AS (INSERT INTO invoices (…) SELECT …, n.number FROM n)`: still one statement, the number
 * taken in the same commit as the outcome (src/store/README.md, "A PAY's statements").
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
    const r = await write<{ accepted: boolean }>(pool, ACCEPT, { ...prefixed(K, a.key), ...prefixed(T, a.row) });
    return r?.accepted ? 'accepted' : 'seen';
  } catch (e) {
    if (sqlState(e) === UNIQUE_VIOLATION && constraintOf(e) === 'transactions_merchant_relation') return 'relation';
    throw e;
  }
}

function outcomeSql(keys: readonly string[], event: boolean): string {
  const ev = event ? `, ev AS (INSERT INTO outbox_events (${EVENT_COLUMNS}) ${eventSelect(E, 't')})` : '';
  return `WITH ch AS (
  INSERT INTO sandbox_charges (${CHARGE.columns}) VALUES (${CHARGE.params})
  ON CONFLICT (idempotency_key) DO NOTHING RETURNING 1
), t AS (
  UPDATE transactions SET ${setList(keys, P)}
  WHERE id = @id AND status = @fromStatus AND EXISTS (SELECT 1 FROM ch)
  RETURNING ${selectList(transactions)}
)${ev}
SELECT EXISTS (SELECT 1 FROM ch) AS "entered__", t.* FROM (SELECT 1) AS one LEFT JOIN t ON true`;
}

export async function recordSandboxOutcome(pool: pg.Pool, o: ChargeOutcome): Promise<OutcomeRecorded> {
  const keys = patchKeys(transactions, o.patch);
  const args = {
    ...prefixed(C, o.entry),
    ...prefixed(P, o.patch),
    ...(o.event ? eventArgs(o.event, E).args : {}),
    id: o.transactionId,
    fromStatus: o.from,
  };
  const r = await write<TransactionRow & { entered__: boolean }>(pool, outcomeSql(keys, o.event !== undefined), args);
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
