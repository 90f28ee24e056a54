/**
 * The card channel interface (SPEC §9). Services talk to a channel only through this; a second
 * channel (a real processor) is another implementation of it, chosen in app.ts.
 *
 * Every call carries an idempotency key: a repeated key returns the first result and moves
 * no money twice. A decline is a result, not an exception; a thrown error means a fault
 * (network, bug) after which the caller retries with the same key.
 */
import type { Clock } from '../domain/clock.js';
import type { Store } from '../store/store.js';

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
  | 'authentication_expired';

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
  card: ChannelCard;
  /** Customer-present (PAY, checkout, first subscription charge) may ask for 3DS; merchant-initiated (renewals) never. */
  customerPresent: boolean;
  /** For merchant-initiated renewals: 0 for the RENEW attempt, 1..3 for retries. */
  retryCount?: number;
}

export type ChargeResult =
  | { outcome: 'approved'; ref: string }
  | { outcome: 'declined'; ref: string; reason: FailReason }
  | { outcome: 'requires_action'; ref: string };

export interface RefundRequest {
  idempotencyKey: string;
  chargeRef: string;
  amount: number;
  currency: string;
}

export type RefundResult = { outcome: 'refunded'; ref: string } | { outcome: 'failed'; reason: string };

export interface Channel {
  readonly name: string;
  charge(req: ChargeRequest): Promise<ChargeResult>;
  /** Finish a charge that answered requires_action: the 3DS challenge passed or failed. Idempotent per ref. */
  completeAction(ref: string, passed: boolean): Promise<ChargeResult>;
  refund(req: RefundRequest): Promise<RefundResult>;
}
