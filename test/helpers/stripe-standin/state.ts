import { randomBytes } from 'node:crypto';
import type { CardBehaviour, Decline } from './cards.js';

/** What the stand-in remembers, per Stripe account. Objects are rendered from fixtures on demand. */
export interface PaymentMethodState {
  id: string;
  created: number;
  behaviour: CardBehaviour;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  fingerprint: string;
  name: string | null;
  customerId: string | null;
  /** A successful charge with setup_future_usage=off_session (or an attach) set it up. */
  setUpOffSession: boolean;
  metadata: Record<string, string>;
}

export interface CustomerState {
  id: string;
  created: number;
  email: string | null;
  name: string | null;
  description: string | null;
  metadata: Record<string, string>;
}

export type IntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'succeeded'
  | 'canceled';

export interface LastError {
  type: 'card_error' | 'invalid_request_error';
  code: string;
  declineCode: string | null;
  message: string;
  chargeId: string | null;
  paymentMethodId: string | null;
}

export interface IntentState {
  id: string;
  created: number;
  clientSecret: string;
  amount: number;
  currency: string;
  customerId: string | null;
  paymentMethodId: string | null;
  status: IntentStatus;
  setupFutureUsage: 'off_session' | 'on_session' | null;
  offSession: boolean;
  returnUrl: string | null;
  lastError: LastError | null;
  chargeIds: string[];
  description: string | null;
  metadata: Record<string, string>;
  /** The charge a 'processing' intent will become when settled. */
  pendingSettlement: boolean;
  /** Set by POST /v1/payment_intents/:id/cancel. */
  canceledAt?: number | null;
  cancellationReason?: string | null;
}

export type SetupIntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'succeeded'
  | 'canceled';

/** A SetupIntent: a card saved on a Customer for later off-session charges, with no charge now. */
export interface SetupIntentState {
  id: string;
  created: number;
  clientSecret: string;
  customerId: string | null;
  paymentMethodId: string | null;
  status: SetupIntentStatus;
  usage: 'off_session' | 'on_session';
  returnUrl: string | null;
  lastError: LastError | null;
  cancellationReason: string | null;
  description: string | null;
  metadata: Record<string, string>;
}

export interface ChargeState {
  id: string;
  created: number;
  intentId: string;
  amount: number;
  currency: string;
  paymentMethodId: string;
  customerId: string | null;
  succeeded: boolean;
  decline: Decline | null;
}

export type RefundStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';

export interface RefundState {
  id: string;
  created: number;
  chargeId: string;
  intentId: string;
  amount: number;
  currency: string;
  status: RefundStatus;
  reason: string | null;
  failureReason: string | null;
  metadata: Record<string, string>;
}

export interface WebhookEndpoint {
  url: string;
  secret: string;
}

export interface AccountState {
  id: string;
  secretKey: string;
  /** Keys Stripe still knows but that were rolled or deleted in the dashboard. */
  revokedKeys: Set<string>;
  /** Restricted keys (rk_test_…) and the API resources each may NOT use. */
  restrictedKeys: Map<string, Set<string>>;
  webhook: WebhookEndpoint | null;
  /** Raw card data APIs enabled (server-side card numbers); Stripe refuses card[number] otherwise. */
  rawCardData: boolean;
  refundMode: 'succeeded' | 'pending';
  customers: Map<string, CustomerState>;
  paymentMethods: Map<string, PaymentMethodState>;
  intents: Map<string, IntentState>;
  setupIntents: Map<string, SetupIntentState>;
  charges: Map<string, ChargeState>;
  refunds: Map<string, RefundState>;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Stripe-shaped ids: prefix + 24 base62 characters. */
export function stripeId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % 62];
  return `${prefix}_${out}`;
}

export function newAccount(opts: { webhook?: WebhookEndpoint | null; rawCardData?: boolean } = {}): AccountState {
  return {
    id: stripeId('acct', 16),
    secretKey: stripeId('sk_test', 32),
    revokedKeys: new Set(),
    restrictedKeys: new Map(),
    webhook: opts.webhook ?? null,
    rawCardData: opts.rawCardData ?? true,
    refundMode: 'succeeded',
    customers: new Map(),
    paymentMethods: new Map(),
    intents: new Map(),
    setupIntents: new Map(),
    charges: new Map(),
    refunds: new Map(),
  };
}
