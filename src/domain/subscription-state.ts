/**
 * The subscription state table of SPEC §6 as data. Services ask `nextState(from, trigger)`;
 * anything not in the table is refused (the caller answers 1008 for pause/resume/cancel).
 * Effects (records, counts, callbacks) live with the services; this is only the graph.
 */
export const SUBSCRIPTION_STATUSES = ['INCOMPLETE', 'ACTIVE', 'PAUSED', 'CANCELLED', 'FAILED', 'EXPIRED'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** `NEW` is the "(new)" row of the table: the subscription does not exist yet. */
export type FromState = SubscriptionStatus | 'NEW';

export type Trigger =
  | 'FIRST_CHARGE_SUCCEEDED'
  | 'TRIAL_STARTED'
  | 'FIRST_CHARGE_NEEDS_3DS'
  | 'FIRST_CHARGE_DECLINED'
  | 'THREE_DS_COMPLETED'
  | 'THREE_DS_FAILED'
  | 'THREE_DS_TIMED_OUT'
  | 'RENEWAL_SUCCEEDED'
  | 'RENEWAL_FAILED_RETRIES_LEFT'
  | 'FINAL_RETRY_FAILED'
  | 'PAUSE'
  | 'RESUME'
  | 'CANCEL';

export interface Transition {
  from: FromState;
  trigger: Trigger;
  to: SubscriptionStatus;
}

export const TRANSITIONS: readonly Transition[] = [
  { from: 'NEW', trigger: 'FIRST_CHARGE_SUCCEEDED', to: 'ACTIVE' },
  { from: 'NEW', trigger: 'TRIAL_STARTED', to: 'ACTIVE' },
  { from: 'NEW', trigger: 'FIRST_CHARGE_NEEDS_3DS', to: 'INCOMPLETE' },
  { from: 'NEW', trigger: 'FIRST_CHARGE_DECLINED', to: 'EXPIRED' },
  { from: 'INCOMPLETE', trigger: 'THREE_DS_COMPLETED', to: 'ACTIVE' },
  { from: 'INCOMPLETE', trigger: 'THREE_DS_FAILED', to: 'EXPIRED' },
  { from: 'INCOMPLETE', trigger: 'THREE_DS_TIMED_OUT', to: 'EXPIRED' },
  { from: 'ACTIVE', trigger: 'RENEWAL_SUCCEEDED', to: 'ACTIVE' },
  { from: 'ACTIVE', trigger: 'RENEWAL_FAILED_RETRIES_LEFT', to: 'ACTIVE' },
  { from: 'ACTIVE', trigger: 'FINAL_RETRY_FAILED', to: 'FAILED' },
  { from: 'ACTIVE', trigger: 'PAUSE', to: 'PAUSED' },
  { from: 'PAUSED', trigger: 'RESUME', to: 'ACTIVE' },
  { from: 'ACTIVE', trigger: 'CANCEL', to: 'CANCELLED' },
  { from: 'PAUSED', trigger: 'CANCEL', to: 'CANCELLED' },
  { from: 'INCOMPLETE', trigger: 'CANCEL', to: 'CANCELLED' },
];

const index = new Map<string, SubscriptionStatus>(TRANSITIONS.map((t) => [`${t.from}|${t.trigger}`, t.to]));

/** The state after `trigger`, or null when the table has no such row (not allowed). */
export function nextState(from: FromState, trigger: Trigger): SubscriptionStatus | null {
  return index.get(`${from}|${trigger}`) ?? null;
}

/** States counted by plans.currentSubscriptions (SPEC §6). */
export function isCounted(status: SubscriptionStatus): boolean {
  return status === 'INCOMPLETE' || status === 'ACTIVE' || status === 'PAUSED';
}

/** Ended states: card data is deleted on entering them (SPEC §6). */
export function isEnded(status: SubscriptionStatus): boolean {
  return status === 'CANCELLED' || status === 'FAILED' || status === 'EXPIRED';
}
