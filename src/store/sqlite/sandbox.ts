import type { SandboxChargeRow } from '../store.js';
import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';
import { sandboxCharges } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';

/** The sandbox channel's ledger, keyed by the caller's idempotency key. */
const SELECT = selectFrom(sandboxCharges);

type Stored = Omit<SandboxChargeRow, 'customerPresent'> & { customerPresent: number };
const row = (r: Stored | undefined): SandboxChargeRow | undefined =>
  r ? { ...r, customerPresent: r.customerPresent === 1 } : undefined;

/** Insert unless the idempotency key is taken; whether it was inserted (the first caller decides). */
export function insertSandboxCharge(sqlite: Sqlite, r: SandboxChargeRow): boolean {
  return (
    prepared(sqlite, `${insertRow(sandboxCharges)} ON CONFLICT (idempotency_key) DO NOTHING`).run({
      ...r,
      customerPresent: r.customerPresent ? 1 : 0,
    }).changes === 1
  );
}

export function getSandboxChargeByKey(sqlite: Sqlite, key: string): SandboxChargeRow | undefined {
  return row(prepared(sqlite, `${SELECT} WHERE idempotency_key = ?`).get(key) as Stored | undefined);
}

export function getSandboxCharge(sqlite: Sqlite, id: string): SandboxChargeRow | undefined {
  return row(prepared(sqlite, `${SELECT} WHERE id = ?`).get(id) as Stored | undefined);
}

export function finishSandboxAction(
  sqlite: Sqlite,
  id: string,
  outcome: 'approved' | 'failed',
  declineCode: string | null,
  now: number,
): void {
  prepared(
    sqlite,
    "UPDATE sandbox_charges SET outcome = ?, decline_code = ?, updated_at = ? WHERE id = ? AND outcome = 'requires_action'",
  ).run(outcome, declineCode, now, id);
}

export function sandboxRefunded(sqlite: Sqlite, chargeId: string): number {
  return (
    prepared(
      sqlite,
      "SELECT coalesce(sum(amount), 0) AS total FROM sandbox_charges WHERE kind = 'refund' AND parent_id = ? AND outcome = 'approved'",
    ).get(chargeId) as { total: number }
  ).total;
}
