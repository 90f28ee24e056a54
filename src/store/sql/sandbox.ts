import type { SandboxChargeRow } from '../store.js';
import { sandboxCharges } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';
import type { Db } from './db.js';

/** The sandbox channel's ledger, keyed by the caller's idempotency key. */
const SELECT = selectFrom(sandboxCharges);

/** SQLite answers a boolean column as 0/1. */
type Stored = Omit<SandboxChargeRow, 'customerPresent'> & { customerPresent: boolean | number };
const row = (r: Stored | undefined): SandboxChargeRow | undefined =>
  r ? { ...r, customerPresent: r.customerPresent === true || r.customerPresent === 1 } : undefined;

const INSERT_NEW = `${insertRow(sandboxCharges)} ON CONFLICT (idempotency_key) DO NOTHING`;

/** Insert unless the idempotency key is taken; whether it was inserted (the first caller decides). */
export async function insertSandboxCharge(db: Db, r: SandboxChargeRow): Promise<boolean> {
  return (await db.run(INSERT_NEW, { ...r })) === 1;
}

export async function getSandboxChargeByKey(db: Db, key: string): Promise<SandboxChargeRow | undefined> {
  return row(await db.get<Stored>(`${SELECT} WHERE idempotency_key = @key`, { key }));
}

export async function getSandboxCharge(db: Db, id: string): Promise<SandboxChargeRow | undefined> {
  return row(await db.get<Stored>(`${SELECT} WHERE id = @id`, { id }));
}

export async function finishSandboxAction(
  db: Db,
  id: string,
  outcome: 'approved' | 'failed',
  declineCode: string | null,
  now: number,
): Promise<void> {
  await db.run(
    "UPDATE sandbox_charges SET outcome = @outcome, decline_code = @declineCode, updated_at = @now WHERE id = @id AND outcome = 'requires_action'",
    { id, outcome, declineCode, now },
  );
}

export async function sandboxRefunded(db: Db, chargeId: string): Promise<number> {
  const r = await db.get<{ total: number }>(
    "SELECT CAST(coalesce(sum(amount), 0) AS BIGINT) AS total FROM sandbox_charges WHERE kind = 'refund' AND parent_id = @chargeId AND outcome = 'approved'",
    { chargeId },
  );
  return r?.total ?? 0;
}
