import { describe, expect, it } from 'vitest';
import { stripePace } from '../../src/cli/commands/renew-run.js';

const progress = { done: 0, total: 0, stripeCalls: 0, stripeRateLimited: 0, elapsedMs: 0 };

describe("renew's progress line on a terminal", () => {
  it("shows Stripe's pace in calls per second and the time left at that pace", () => {
    expect(stripePace({ ...progress, done: 640, total: 10_000, stripeCalls: 640, elapsedMs: 10_000 })).toBe(
      '· Stripe 64.0 calls/s · ~147 s left',
    );
  });

  it('says how many calls Stripe answered 429', () => {
    expect(
      stripePace({ ...progress, done: 100, total: 300, stripeCalls: 110, stripeRateLimited: 10, elapsedMs: 10_000 }),
    ).toBe('· Stripe 11.0 calls/s · 10 answered 429 · ~20 s left');
  });

  it('shows nothing for a run that has not called Stripe (the sandbox)', () => {
    expect(stripePace({ ...progress, done: 5, total: 10, elapsedMs: 1000 })).toBe('');
  });
});
