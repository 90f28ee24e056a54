import type { ChannelDeps } from '../app.js';
import { newId } from '../domain/ids.js';
import type { Channel, ChargeRequest, ChargeResult, FailReason, RefundRequest, RefundResult } from './channel.js';

/**
 * The built-in sandbox channel of SPEC §9. It decides at once from the card number and keeps
 * its own ledger (sandbox_charges) keyed by idempotency key, so a repeated key returns the
 * first result. It is a real part of the product: merchants integrate against it.
 */
type Behaviour =
  | { kind: 'approve' }
  | { kind: 'decline'; reason: FailReason }
  | { kind: 'three_ds' }
  | { kind: 'renewals_decline' }
  | { kind: 'first_renewal_attempt_declines' };

const CARDS: Record<string, Behaviour> = {
  '4000000000000002': { kind: 'decline', reason: 'card_declined' },
  '4000000000009995': { kind: 'decline', reason: 'insufficient_funds' },
  '4000000000000069': { kind: 'decline', reason: 'expired_card' },
  '4000000000000127': { kind: 'decline', reason: 'incorrect_cvc' },
  '4000000000000119': { kind: 'decline', reason: 'processing_error' },
  '4000000000003220': { kind: 'three_ds' },
  '4000002500003155': { kind: 'three_ds' },
  '4000000000000341': { kind: 'renewals_decline' },
  '4000000000000036': { kind: 'first_renewal_attempt_declines' },
};

type Decision = { outcome: 'approved' } | { outcome: 'declined'; reason: FailReason } | { outcome: 'requires_action' };

export function sandboxDecision(req: Pick<ChargeRequest, 'card' | 'customerPresent' | 'retryCount'>): Decision {
  const b = CARDS[req.card.number] ?? { kind: 'approve' };
  switch (b.kind) {
    case 'approve':
      return { outcome: 'approved' };
    case 'decline':
      return { outcome: 'declined', reason: b.reason };
    case 'three_ds':
      // Renewals are merchant-initiated: never 3DS.
      return req.customerPresent ? { outcome: 'requires_action' } : { outcome: 'approved' };
    case 'renewals_decline':
      return req.customerPresent ? { outcome: 'approved' } : { outcome: 'declined', reason: 'card_declined' };
    case 'first_renewal_attempt_declines':
      if (req.customerPresent) return { outcome: 'approved' };
      return (req.retryCount ?? 0) === 0 ? { outcome: 'declined', reason: 'insufficient_funds' } : { outcome: 'approved' };
  }
}

interface Row {
  id: string;
  kind: 'charge' | 'refund';
  parent_id: string | null;
  amount: number;
  outcome: 'approved' | 'declined' | 'requires_action' | 'failed';
  decline_code: string | null;
}

function toChargeResult(row: Row): ChargeResult {
  if (row.outcome === 'approved') return { outcome: 'approved', ref: row.id };
  if (row.outcome === 'requires_action') return { outcome: 'requires_action', ref: row.id };
  return { outcome: 'declined', ref: row.id, reason: (row.decline_code ?? 'card_declined') as FailReason };
}

export function createSandboxChannel({ sqlite, writer, clock }: ChannelDeps): Channel {
  const insert = sqlite.prepare(
    `INSERT INTO sandbox_charges (id, idempotency_key, kind, parent_id, amount, currency, card_bin, card_last4,
       customer_present, outcome, decline_code, created_at, updated_at)
     VALUES (@id, @key, @kind, @parentId, @amount, @currency, @bin, @last4, @customerPresent, @outcome, @declineCode, @now, @now)
     ON CONFLICT (idempotency_key) DO NOTHING
     RETURNING *`,
  );
  const byKey = sqlite.prepare('SELECT * FROM sandbox_charges WHERE idempotency_key = ?');
  const byId = sqlite.prepare('SELECT * FROM sandbox_charges WHERE id = ?');
  const finishAction = sqlite.prepare(
    "UPDATE sandbox_charges SET outcome = ?, decline_code = ?, updated_at = ? WHERE id = ? AND outcome = 'requires_action'",
  );
  const refundedSum = sqlite.prepare(
    "SELECT coalesce(sum(amount), 0) AS total FROM sandbox_charges WHERE kind = 'refund' AND parent_id = ? AND outcome = 'approved'",
  );

  const refundTx = sqlite.transaction((req: RefundRequest): Row => {
    const existing = byKey.get(req.idempotencyKey) as Row | undefined;
    if (existing) return existing;
    const parent = byId.get(req.chargeRef) as Row | undefined;
    const refunded = (refundedSum.get(req.chargeRef) as { total: number }).total;
    const ok = parent !== undefined && parent.kind === 'charge' && parent.outcome === 'approved' && refunded + req.amount <= parent.amount;
    const now = clock.now();
    insert.get({
      id: newId('ch', now),
      key: req.idempotencyKey,
      kind: 'refund',
      parentId: req.chargeRef,
      amount: req.amount,
      currency: req.currency,
      bin: null,
      last4: null,
      customerPresent: 0,
      outcome: ok ? 'approved' : 'declined',
      declineCode: ok ? null : parent ? 'amount_exceeds_charge' : 'no_such_charge',
      now,
    });
    return byKey.get(req.idempotencyKey) as Row;
  });

  return {
    name: 'sandbox',
    async charge(req) {
      const decision = sandboxDecision(req);
      const now = clock.now();
      const row = await writer.transaction(() => {
        const inserted = insert.get({
          id: newId('ch', now),
          key: req.idempotencyKey,
          kind: 'charge',
          parentId: null,
          amount: req.amount,
          currency: req.currency,
          bin: req.card.number.slice(0, 6),
          last4: req.card.number.slice(-4),
          customerPresent: req.customerPresent ? 1 : 0,
          outcome: decision.outcome,
          declineCode: decision.outcome === 'declined' ? decision.reason : null,
          now,
        });
        // Whoever inserted first decided; a repeated key reads that first result.
        return (inserted ?? byKey.get(req.idempotencyKey)) as Row;
      });
      return toChargeResult(row);
    },
    async completeAction(ref, passed) {
      const row = await writer.transaction(() => {
        finishAction.run(passed ? 'approved' : 'failed', passed ? null : 'authentication_failed', clock.now(), ref);
        return byId.get(ref) as Row | undefined;
      });
      if (!row) throw new Error(`sandbox: no charge ${ref}`);
      return toChargeResult(row);
    },
    async refund(req): Promise<RefundResult> {
      const row = await writer.transaction(() => refundTx(req));
      return row.outcome === 'approved' ? { outcome: 'refunded', ref: row.id } : { outcome: 'failed', reason: row.decline_code ?? 'refund_failed' };
    },
  };
}
