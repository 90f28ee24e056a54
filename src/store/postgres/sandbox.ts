import type { SandboxChargeRow } from '../store.js';
import { sandboxCharges } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';
import { get, run, type Conn } from './query.js';

/** The sandbox channel's ledger, keyed by the caller's idempotency key. */
const SELECT = selectFrom(sandboxCharges);

/**
 * Insert unless the idempotency key is taken; whether it was inserted. ON CONFLICT DO NOTHING waits
 * for a concurrent insert of the same key and then does nothing: the first caller decides.
 */
export async function insertSandboxCharge(db: Conn, r: SandboxChargeRow): Promise<boolean> {
  // The sandbox stands in for a processor: nothing is answered on its ledger alone. Every caller
  // records the outcome in paygate's own tables afterwards, in a later transaction that commits
  // with synchronous_commit=on, and PostgreSQL writes its log in order: that commit reaching
  // disk carries this one with it. So this commit need not wait for the disk itself (one flush
  // fewer per charge). A crash before that later commit loses both, and nothing was answered:
  // a repeat of the request or the next renewal run asks the sandbox again, which decides the
  // same way. Sent in the same round trip as the INSERT (pipelined connection).
  const [, inserted] = await Promise.all([
    run(db, 'SET LOCAL synchronous_commit = off'),
    run(db, `${insertRow(sandboxCharges)} ON CONFLICT (idempotency_key) DO NOTHING`, { ...r }),
  ]);
  return inserted === 1;
}

export function getSandboxChargeByKey(db: Conn, key: string): Promise<SandboxChargeRow | undefined> {
  return get(db, `${SELECT} WHERE idempotency_key = @key`, { key });
}

export function getSandboxCharge(db: Conn, id: string): Promise<SandboxChargeRow | undefined> {
  return get(db, `${SELECT} WHERE id = @id`, { id });
}

export async function finishSandboxAction(
  db: Conn,
  id: string,
  outcome: 'approved' | 'failed',
  declineCode: string | null,
  now: number,
): Promise<void> {
  await run(
    db,
    "UPDATE sandbox_charges SET outcome = @outcome, decline_code = @declineCode, updated_at = @now WHERE id = @id AND outcome = 'requires_action'",
    { id, outcome, declineCode, now },
  );
}

export async function sandboxRefunded(db: Conn, chargeId: string): Promise<number> {
  const row = await get<{ total: number }>(
    db,
    "SELECT coalesce(sum(amount), 0)::bigint AS total FROM sandbox_charges WHERE kind = 'refund' AND parent_id = @chargeId AND outcome = 'approved'",
    { chargeId },
  );
  return row?.total ?? 0;
}
