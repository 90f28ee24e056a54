/**
 * The card channel interface (SPEC §9). Services talk to a channel only through this; a second
 * channel (a real processor) is another implementation of it, chosen in app.ts.
 *
 * Every call carries an idempotency key: a repeated key returns the first result and moves
 * no money twice. A decline is a result, not an exception; a thrown error means a fault
 * (network, bug) after which the caller retries with the same key.
 */
import type { Clock } from '../domain/clock.js';
import type { SandboxChargeRow, Store } from '../store/store.js';

/** What a channel implementation is built from: the sandbox keeps its ledger in the store. */
export interface ChannelDeps {
  store: Store;
  clock: Clock;
}

export type FailReason =
  | 'card_declined'
  | 'insufficient_funds'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'processing_error'
  | 'authentication_failed'
  | 'authentication_expired'
  /** Stripe: an off-session charge the issuer wants the cardholder to authenticate. */
  | 'authentication_required';

export interface ChannelCard {
  number: string;
  expMonth: number;
  expYear: number;
  /** Present only on customer-present charges; never stored. */
  cvv?: string;
  holderName?: string;
}

export interface ChargeRequest {
  idempotencyKey: string;
  amount: number;
  currency: string;
  /** The card as entered (absent only for an off-session charge of a processor-kept card, `stored`). */
  card?: ChannelCard;
  /** Customer-present (PAY, checkout, first subscription charge) may ask for 3DS; merchant-initiated (renewals) never. */
  customerPresent: boolean;
  /** For merchant-initiated renewals: 0 for the RENEW attempt, 1..3 for retries. */
  retryCount?: number;
  /** The transaction whose 3DS return this is (a channel that hands 3DS over returns the shopper there). */
  transactionId?: string;
  /** A SUBSCRIPTION's first charge: keep the card with the processor for off-session renewals. */
  keepCard?: boolean;
  /** Off-session with a card the processor keeps (no number): its ids from the first charge. */
  stored?: {
    customerId: string;
    paymentMethodId: string;
    /** An earlier run sent this charge and never learnt its answer: look for it before charging. */
    triedBefore?: boolean;
    /**
     * Never charge: answer the charge made under the key if there is one, else a decline marked
     * `unmade` (a renewal taken over on a subscription cancelled or paused since: services/renew/charge.ts).
     */
    lookOnly?: boolean;
  };
  /**
   * A zero-amount, customer-present charge is a card check (a trial's first charge, a card
   * update): a processor that keeps cards saves the card for off-session charges without charging
   * it (Stripe: a SetupIntent), on this Customer of its own (a card update) or on a new one.
   */
  customerId?: string;
}

/** A card kept by the processor, as it reported it: ids and display fields, never the number. */
export interface KeptCard {
  customerId: string;
  paymentMethodId: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export type ChargeResult =
  | { outcome: 'approved'; ref: string; kept?: KeptCard }
  /**
   * unmade: the answer of `chargeByKey` when no charge was ever made under the key — the key is
   * now closed by this decline, nothing moved and nothing can (the caller may record "no charge").
   */
  | { outcome: 'declined'; ref: string | null; reason: FailReason; unmade?: true }
  /** redirectUrl: where a processor that runs 3DS itself takes the shopper (the sandbox runs its own page). */
  | { outcome: 'requires_action'; ref: string; redirectUrl?: string; kept?: KeptCard }
  /**
   * The processor may have moved the money or may still (a timeout, a 5xx, an intent still
   * processing): never a decline. The transaction stays in progress and is settled later from the
   * processor's own answer. ref: the charge it is known to have created; moved=false: certainly nothing charged.
   */
  | { outcome: 'in_flight'; ref: string | null; moved: boolean; cause: string; kept?: KeptCard }
  /** The processor did not run the call at all (revoked key, missing permission, rejected request). */
  | { outcome: 'refused'; ref: null; message: string; cause: string };

/** A charge started and never recorded: its key, and what a closing entry under the key records. */
export interface UnrecordedCharge {
  idempotencyKey: string;
  amount: number;
  currency: string;
  customerPresent: boolean;
}

export interface RefundRequest {
  /** paygate's refund id: the processor's idempotency key derives from it (and Stripe tags the Refund with it). */
  idempotencyKey: string;
  chargeRef: string;
  amount: number;
  currency: string;
  /**
   * A call for this refund was sent before and its answer never learnt (a timeout, a stored 500):
   * the processor looks for the refund it may have made before asking for one (its idempotency
   * key may be forgotten by now), so a late retry never refunds twice.
   */
  triedBefore?: boolean;
}

export type RefundResult =
  | { outcome: 'refunded'; ref: string }
  | { outcome: 'failed'; reason: string }
  /** Accepted, settles later (Stripe `pending`), or not known yet (a timeout): the refund stays PENDING. */
  | { outcome: 'pending'; ref: string | null }
  | { outcome: 'refused'; message: string };

export interface Channel {
  readonly name: string;
  charge(req: ChargeRequest): Promise<ChargeResult>;
  /** Finish a charge that answered requires_action: the 3DS challenge passed or failed. Idempotent per ref. */
  completeAction(ref: string, passed: boolean): Promise<ChargeResult>;
  refund(req: RefundRequest): Promise<RefundResult>;
  /** Where a charge stands now, read from the processor (3DS return, webhooks, housekeeping); absent on the sandbox. */
  retrieve?(ref: string): Promise<ChargeResult>;
  /**
   * Settle a charge left in flight: read it and, only if its confirmation never ran, confirm it with
   * the original key (never a second charge). transactionId: a customer-present charge's 3DS return;
   * absent: off-session (a renewal).
   */
  resume?(req: { ref: string; idempotencyKey: string; transactionId?: string }): Promise<ChargeResult>;
  /**
   * What became of the charge made with this idempotency key by a caller that died before
   * recording it (housekeeping, once its charge lease has passed). A channel that keeps its
   * charges by key (the sandbox) answers from them; with no charge under the key it closes the
   * key first with a declined entry (processing_error), so that a late call with the key reads
   * that decline instead of charging, and answers it (`unmade`): nothing moved. Absent where
   * charges cannot be found by key. Also how a renewal run asks about a renewal it took over on a
   * subscription cancelled or paused meanwhile (services/renew/charge.ts): never a new charge.
   */
  chargeByKey?(req: UnrecordedCharge): Promise<ChargeResult>;
  /**
   * The sandbox only: its answer to a customer-present charge and the ledger entry that makes it,
   * with nothing written, so the caller writes the entry in the same write as the outcome
   * (Store.recordSandboxOutcome). The entry's key already taken means this answer does not hold:
   * the caller then asks `charge`, which answers from the ledger. Absent on real processors.
   */
  prepareCharge?(req: ChargeRequest): { result: ChargeResult; entry: SandboxChargeRow };
  /** Where a refund the processor answered `pending` stands now; absent on the sandbox (it never answers pending). */
  retrieveRefund?(ref: string): Promise<RefundResult>;
  /**
   * Give up a charge waiting on a 3-D Secure challenge that ran out: cancelled at the processor so
   * it can no longer be completed, or — when the processor will not cancel it because it was paid
   * (or is being paid) meanwhile — how it stands, for the caller to record. Idempotent per key.
   * Absent on the sandbox (its challenge lives in paygate's own page, which expiry closes).
   */
  abandon?(req: { ref: string; idempotencyKey: string }): Promise<AbandonResult>;
}

export type AbandonResult = { outcome: 'cancelled'; ref: string } | ChargeResult;
