import { describe, expect, it } from 'vitest';
import {
  isCounted,
  isEnded,
  nextState,
  SUBSCRIPTION_STATUSES,
  TRANSITIONS,
  type FromState,
  type SubscriptionStatus,
  type Trigger,
} from '../../src/domain/subscription-state.js';

// SPEC §6, row by row.
const ROWS: [FromState, Trigger, SubscriptionStatus][] = [
  ['NEW', 'FIRST_CHARGE_SUCCEEDED', 'ACTIVE'],
  ['NEW', 'TRIAL_STARTED', 'ACTIVE'],
  ['NEW', 'FIRST_CHARGE_NEEDS_3DS', 'INCOMPLETE'],
  ['NEW', 'FIRST_CHARGE_DECLINED', 'EXPIRED'],
  ['INCOMPLETE', 'THREE_DS_COMPLETED', 'ACTIVE'],
  ['INCOMPLETE', 'THREE_DS_FAILED', 'EXPIRED'],
  ['INCOMPLETE', 'THREE_DS_TIMED_OUT', 'EXPIRED'],
  ['ACTIVE', 'RENEWAL_SUCCEEDED', 'ACTIVE'],
  ['ACTIVE', 'RENEWAL_FAILED_RETRIES_LEFT', 'ACTIVE'],
  ['ACTIVE', 'FINAL_RETRY_FAILED', 'FAILED'],
  ['ACTIVE', 'PAUSE', 'PAUSED'],
  ['PAUSED', 'RESUME', 'ACTIVE'],
  ['ACTIVE', 'CANCEL', 'CANCELLED'],
  ['PAUSED', 'CANCEL', 'CANCELLED'],
  ['INCOMPLETE', 'CANCEL', 'CANCELLED'],
];

describe('subscription state table', () => {
  it.each(ROWS)('%s --%s--> %s', async (from, trigger, to) => {
    expect(nextState(from, trigger)).toBe(to);
  });

  it('has exactly the rows of SPEC §6', async () => {
    expect(TRANSITIONS.map((t) => [t.from, t.trigger, t.to]).sort()).toEqual([...ROWS].sort());
  });

  // "any other | pause, resume, cancel | unchanged | 1008" — including asking for the current state.
  const manual: Trigger[] = ['PAUSE', 'RESUME', 'CANCEL'];
  const allowed = new Set(['ACTIVE|PAUSE', 'PAUSED|RESUME', 'ACTIVE|CANCEL', 'PAUSED|CANCEL', 'INCOMPLETE|CANCEL']);
  for (const from of SUBSCRIPTION_STATUSES) {
    for (const trigger of manual) {
      if (allowed.has(`${from}|${trigger}`)) continue;
      it(`${from} refuses ${trigger}`, async () => expect(nextState(from, trigger)).toBeNull());
    }
  }

  it('renewal triggers only apply to ACTIVE subscriptions', async () => {
    for (const from of SUBSCRIPTION_STATUSES.filter((s) => s !== 'ACTIVE')) {
      expect(nextState(from, 'RENEWAL_SUCCEEDED')).toBeNull();
      expect(nextState(from, 'FINAL_RETRY_FAILED')).toBeNull();
    }
  });

  it('counted and ended states partition the statuses', async () => {
    expect(SUBSCRIPTION_STATUSES.filter(isCounted)).toEqual(['INCOMPLETE', 'ACTIVE', 'PAUSED']);
    expect(SUBSCRIPTION_STATUSES.filter(isEnded)).toEqual(['CANCELLED', 'FAILED', 'EXPIRED']);
  });
});
