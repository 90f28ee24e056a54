import { newId } from '../domain/ids.js';
import { rowOf, type SandboxChargeRow } from '../store/store.js';
import { SandboxLedger } from './sandbox-ledger.js';
import type {
  Channel,
  ChannelCard,
  ChannelDeps,
  ChargeRequest,
  ChargeResult,
  FailReason,
  RefundResult,
} from './channel.js';

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

export function sandboxDecision(
  req: Pick<ChargeRequest, 'card' | 'customerPresent' | 'retryCount'> & { card: ChannelCard },
): Decision {
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
      return (req.retryCount ?? 0) === 0
        ? { outcome: 'declined', reason: 'insufficient_funds' }
        : { outcome: 'approved' };
  }
}

/** A ledger entry for a charge keyed by its request; `facts` are what the card and the decision say. */
function chargeEntry(
  req: Pick<ChargeRequest, 'idempotencyKey' | 'amount' | 'currency' | 'customerPresent'>,
  now: number,
  facts: Pick<SandboxChargeRow, 'cardBin' | 'cardLast4' | 'outcome' | 'declineCode'>,
): SandboxChargeRow {
  return rowOf('sandboxCharges', {
    id: newId('ch', now),
    idempotencyKey: req.idempotencyKey,
    kind: 'charge',
    amount: req.amount,
    currency: req.currency,
    customerPresent: req.customerPresent,
    ...facts,
    createdAt: now,
    updatedAt: now,
  });
}

function toChargeResult(row: SandboxChargeRow): ChargeResult {
  if (row.outcome === 'approved') return { outcome: 'approved', ref: row.id };
  if (row.outcome === 'requires_action') return { outcome: 'requires_action', ref: row.id };
  return { outcome: 'declined', ref: row.id, reason: (row.declineCode ?? 'card_declined') as FailReason };
}

export function createSandboxChannel({ store, clock }: ChannelDeps): Channel {
  const ledger = new SandboxLedger(store);
  const prepareCharge = (req: ChargeRequest): { result: ChargeResult; entry: SandboxChargeRow } => {
    const card = req.card;
    if (!card) throw new Error('sandbox: a charge needs the card number');
    const decision = sandboxDecision({ ...req, card });
    const entry = chargeEntry(req, clock.now(), {
      cardBin: card.number.slice(0, 6),
      cardLast4: card.number.slice(-4),
      outcome: decision.outcome,
      declineCode: decision.outcome === 'declined' ? decision.reason : null,
    });
    return { result: toChargeResult(entry), entry };
  };
  return {
    name: 'sandbox',
    prepareCharge,
    async charge(req) {
      const row = await ledger.record(prepareCharge(req).entry);
      if (!row) throw new Error(`sandbox: charge ${req.idempotencyKey} not recorded`);
      return toChargeResult(row);
    },
    async chargeByKey(req) {
      // Whoever writes the key first decides: the dead caller's charge if it reached the ledger,
      // else this closing entry, which a late call with the key then reads instead of charging.
      const row = await ledger.record(
        chargeEntry(req, clock.now(), {
          cardBin: null,
          cardLast4: null,
          outcome: 'declined',
          declineCode: 'processing_error',
        }),
      );
      if (!row) throw new Error(`sandbox: charge ${req.idempotencyKey} not found or closed`);
      // A charge always names its card: an entry without one is a closing entry (this one, or an
      // earlier call's), so no charge was ever made under the key.
      if (row.cardBin === null && row.cardLast4 === null && row.outcome === 'declined')
        return { outcome: 'declined', ref: row.id, reason: 'processing_error', unmade: true };
      return toChargeResult(row);
    },
    async completeAction(ref, passed) {
      const row = await store.transaction(async (tx) => {
        await tx.finishSandboxAction(
          ref,
          passed ? 'approved' : 'failed',
          passed ? null : 'authentication_failed',
          clock.now(),
        );
        return tx.getSandboxCharge(ref);
      });
      if (!row) throw new Error(`sandbox: no charge ${ref}`);
      return toChargeResult(row);
    },
    async refund(req): Promise<RefundResult> {
      const row = await store.transaction(async (tx) => {
        const existing = await tx.getSandboxChargeByKey(req.idempotencyKey);
        if (existing) return existing;
        const parent = await tx.getSandboxCharge(req.chargeRef);
        const refunded = await tx.sandboxRefunded(req.chargeRef);
        const ok =
          parent !== undefined &&
          parent.kind === 'charge' &&
          parent.outcome === 'approved' &&
          refunded + req.amount <= parent.amount;
        const now = clock.now();
        await tx.insertSandboxCharge(
          rowOf('sandboxCharges', {
            id: newId('ch', now),
            idempotencyKey: req.idempotencyKey,
            kind: 'refund',
            parentId: req.chargeRef,
            amount: req.amount,
            currency: req.currency,
            customerPresent: false,
            outcome: ok ? 'approved' : 'declined',
            declineCode: ok ? null : parent ? 'amount_exceeds_charge' : 'no_such_charge',
            createdAt: now,
            updatedAt: now,
          }),
        );
        return tx.getSandboxChargeByKey(req.idempotencyKey);
      });
      if (!row) throw new Error(`sandbox: refund ${req.idempotencyKey} not recorded`);
      return row.outcome === 'approved'
        ? { outcome: 'refunded', ref: row.id }
        : { outcome: 'failed', reason: row.declineCode ?? 'refund_failed' };
    },
  };
}
