import type { Fault, Faults } from './faults.js';
import type { StripeJson } from './fixtures.js';
import type { FormObject } from './form.js';
import type { SecondCount } from './rate-limit.js';
import type { AccountState } from './state.js';
import type { Delivery } from './webhooks.js';

/**
 * A local Stripe for tests: a real HTTP server on 127.0.0.1 that the official `stripe` client
 * talks to (`host`, `port`, `protocol: 'http'`), with the endpoints paygate uses, kept in memory
 * per account, answering objects built from Stripe's published fixtures.
 */
export interface StandinAccount {
  readonly id: string;
  readonly secretKey: string;
  /** The signing secret of the account's webhook endpoint (whsec_…). */
  readonly webhookSecret: string;
  /** Where the account's events are POSTed (null: nowhere). */
  setWebhookUrl(url: string | null): void;
  /** New refunds answer `pending` (settled later by settleRefund) or `succeeded` (default). */
  setRefundMode(mode: 'succeeded' | 'pending'): void;
  /** Whether the account may send card numbers to POST /v1/payment_methods (default true). */
  setRawCardData(enabled: boolean): void;
  /** The key stops working: every call with it answers 401 as Stripe does for a rolled key. */
  revokeKey(key?: string): void;
  /** The dashboard's "Roll key": the current secret key answers 401 from now on; returns the new one (also `secretKey`). */
  rollKey(): string;
  /** A restricted key (rk_test_…) that may use every resource but these (403 on them). */
  createRestrictedKey(
    without?: Array<'balance' | 'payment_methods' | 'customers' | 'payment_intents' | 'setup_intents' | 'refunds'>,
  ): string;
  /** Operations per second before 429 (Stripe: 25 test mode, 100 live); null: no limit. */
  setRateLimit(perSecond: number | null): void;
  /** What the account received per wall-clock second, and totals (answered and refused with 429). */
  traffic(): { perSecond: SecondCount[]; calls: number; limited: number; busiestSecond: number };
  /** Forget the counts so far (a test measuring one phase). */
  resetTraffic(): void;
  readonly state: AccountState;
}

export interface LoggedRequest {
  id: string;
  method: string;
  path: string;
  /** Parameters as the API parsed them; card[number] and card[cvc] masked. */
  params: FormObject;
  idempotencyKey: string | null;
  accountId: string | null;
  /** null while the answer is held (timeout fault). */
  status: number | null;
  replayed: boolean;
  faults: Fault['kind'][];
  /** Refused by the account's rate limit (429) before anything ran. */
  rateLimited: boolean;
  at: number;
}

export interface StripeStandin {
  /** http://127.0.0.1:PORT — what PAYGATE_STRIPE_API_URL is set to. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The account created at start. */
  readonly account: StandinAccount;
  /** `live`: an sk_live_… key and Stripe's live limit (100/s). */
  createAccount(opts?: { webhookUrl?: string; rateLimit?: number | null; live?: boolean }): StandinAccount;
  readonly faults: Faults;
  readonly requests: LoggedRequest[];
  /** Every event emitted, in order (whether or not an endpoint was configured). */
  readonly events: StripeJson[];
  readonly deliveries: Delivery[];
  /** The stand-in's clock (epoch ms): timestamps, idempotency-key expiry, webhook signatures. */
  now(): number;
  advanceClock(ms: number): void;
  /** A `processing` intent (processing fault) settles, with its event. */
  settleIntent(intentId: string, outcome: 'succeeded' | 'failed'): void;
  /** A `pending` refund settles, with refund.updated. */
  settleRefund(refundId: string, outcome: 'succeeded' | 'failed'): void;
  /** POST an already emitted event again (Stripe's retries, or a replay from the dashboard). */
  redeliver(eventId: string): Promise<Delivery>;
  /** Resolves once every delivery started so far has been answered. */
  webhooksIdle(): Promise<void>;
  close(): Promise<void>;
}
