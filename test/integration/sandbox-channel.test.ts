import { rowsOf } from '../helpers/rows.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChargeRequest } from '../../src/channel/channel.js';
import { testApp, type TestApp } from '../helpers/ctx.js';

let app: TestApp;
afterEach(async () => app?.close());

let seq = 0;
const charge = (number: string, over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  idempotencyKey: `k${++seq}`,
  amount: 1000,
  currency: 'USD',
  card: { number, expMonth: 12, expYear: 2030, cvv: '123' },
  customerPresent: true,
  ...over,
});
const rows = async (kind: 'charge' | 'refund') =>
  ((await rowsOf(app.ctx).get('SELECT count(*) AS n FROM sandbox_charges WHERE kind = ?', kind)) as { n: number }).n;

describe('sandbox channel cards (SPEC §9)', () => {
  it.each([
    ['4242424242424242'],
    ['5555555555554444'],
    ['4111111111111111'], // any other Luhn-valid number
  ])('%s is approved', async (number) => {
    app = await testApp();
    expect(await app.ctx.channel.charge(charge(number))).toMatchObject({
      outcome: 'approved',
      ref: expect.stringMatching(/^ch_/),
    });
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
    ['4000000000000119', 'processing_error'],
  ])('%s is declined with %s', async (number, reason) => {
    app = await testApp();
    expect(await app.ctx.channel.charge(charge(number))).toMatchObject({ outcome: 'declined', reason });
  });

  it.each([['4000000000003220'], ['4000002500003155']])(
    '%s asks for 3DS when customer-present, never when merchant-initiated',
    async (number) => {
      app = await testApp();
      expect((await app.ctx.channel.charge(charge(number))).outcome).toBe('requires_action');
      expect((await app.ctx.channel.charge(charge(number, { customerPresent: false }))).outcome).toBe('approved');
    },
  );

  it('4000000000000341 approves the first charge and declines every renewal and retry', async () => {
    app = await testApp();
    const ch = app.ctx.channel;
    expect((await ch.charge(charge('4000000000000341'))).outcome).toBe('approved');
    for (const retryCount of [0, 1, 2, 3]) {
      expect(await ch.charge(charge('4000000000000341', { customerPresent: false, retryCount }))).toMatchObject({
        outcome: 'declined',
        reason: 'card_declined',
      });
    }
  });

  it('4000000000000036 declines a renewal’s first attempt (insufficient_funds) and approves its first retry', async () => {
    app = await testApp();
    const ch = app.ctx.channel;
    expect((await ch.charge(charge('4000000000000036'))).outcome).toBe('approved');
    expect(await ch.charge(charge('4000000000000036', { customerPresent: false, retryCount: 0 }))).toMatchObject({
      outcome: 'declined',
      reason: 'insufficient_funds',
    });
    expect((await ch.charge(charge('4000000000000036', { customerPresent: false, retryCount: 1 }))).outcome).toBe(
      'approved',
    );
  });

  it('the 3DS challenge: passed approves the charge, failed declines it with authentication_failed, each once', async () => {
    app = await testApp();
    const ch = app.ctx.channel;
    const a = await ch.charge(charge('4000000000003220'));
    const b = await ch.charge(charge('4000000000003220'));
    expect(await ch.completeAction(String(a.ref), true)).toEqual({ outcome: 'approved', ref: a.ref });
    expect(await ch.completeAction(String(b.ref), false)).toEqual({
      outcome: 'declined',
      ref: b.ref,
      reason: 'authentication_failed',
    });
    // A second answer does not change the first.
    expect(await ch.completeAction(String(a.ref), false)).toEqual({ outcome: 'approved', ref: a.ref });
  });
});

describe('sandbox channel idempotency', () => {
  it('a repeated charge key returns the first result and records one charge, even with another card', async () => {
    app = await testApp();
    const ch = app.ctx.channel;
    const first = await ch.charge(charge('4242424242424242', { idempotencyKey: 'same' }));
    const again = await ch.charge(charge('4000000000000002', { idempotencyKey: 'same' }));
    expect(again).toEqual(first);
    expect(await rows('charge')).toBe(1);
  });

  it('concurrent charges with one key record one charge and all get its result', async () => {
    app = await testApp();
    const ch = app.ctx.channel;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => ch.charge(charge('4242424242424242', { idempotencyKey: 'burst' }))),
    );
    expect(new Set(results.map((r) => r.ref)).size).toBe(1);
    expect(await rows('charge')).toBe(1);
  });

  it('charges asked for together each get their own result, a repeated key among them the first one', async () => {
    app = await testApp();
    const ch = app.ctx.channel;
    const results = await Promise.all([
      ...Array.from({ length: 10 }, () => ch.charge(charge('4242424242424242'))),
      ...Array.from({ length: 10 }, () => ch.charge(charge('4000000000009995'))),
      ...Array.from({ length: 10 }, (_, i) =>
        ch.charge(charge(i % 2 ? '4000000000000002' : '4242424242424242', { idempotencyKey: 'together' })),
      ),
    ]);
    expect(results.slice(0, 10).every((r) => r.outcome === 'approved')).toBe(true);
    expect(results.slice(10, 20).every((r) => r.outcome === 'declined' && r.reason === 'insufficient_funds')).toBe(
      true,
    );
    // The first of the key's callers decided (an approving card); every other caller got that charge.
    expect(new Set(results.slice(20).map((r) => JSON.stringify(r)))).toEqual(new Set([JSON.stringify(results[20])]));
    expect(results[20]?.outcome).toBe('approved');
    expect(await rows('charge')).toBe(21);
  });

  it('a charge the ledger cannot write fails alone; the charges asked for with it are recorded', async () => {
    app = await testApp();
    const ch = app.ctx.channel;
    const settled = await Promise.allSettled([
      ...Array.from({ length: 5 }, () => ch.charge(charge('4242424242424242'))),
      // Not a number: refused by the database (NOT NULL on SQLite, bigint on PostgreSQL).
      ch.charge(charge('4242424242424242', { amount: Number.NaN })),
    ]);
    expect(settled.map((s) => s.status)).toEqual([...Array(5).fill('fulfilled'), 'rejected']);
    expect(await rows('charge')).toBe(5);
  });

  it('a repeated refund key returns the first result and refunds once', async () => {
    app = await testApp();
    const ch = app.ctx.channel;
    const paid = await ch.charge(charge('4242424242424242'));
    const req = { idempotencyKey: 'r1', chargeRef: String(paid.ref), amount: 600, currency: 'USD' };
    const first = await ch.refund(req);
    expect(first).toMatchObject({ outcome: 'refunded' });
    expect(await ch.refund(req)).toEqual(first);
    expect(await rows('refund')).toBe(1);
    // The first refund counts against the charge: 600 + 600 > 1000.
    expect(await ch.refund({ ...req, idempotencyKey: 'r2' })).toEqual({
      outcome: 'failed',
      reason: 'amount_exceeds_charge',
    });
    expect(await ch.refund({ ...req, idempotencyKey: 'r3', amount: 400 })).toMatchObject({ outcome: 'refunded' });
  });

  it('refunds a charge it does not know, or one that was declined, never', async () => {
    app = await testApp();
    const ch = app.ctx.channel;
    const declined = await ch.charge(charge('4000000000000002'));
    expect(await ch.refund({ idempotencyKey: 'x1', chargeRef: 'ch_nope', amount: 100, currency: 'USD' })).toEqual({
      outcome: 'failed',
      reason: 'no_such_charge',
    });
    expect(
      await ch.refund({ idempotencyKey: 'x2', chargeRef: String(declined.ref), amount: 100, currency: 'USD' }),
    ).toMatchObject({ outcome: 'failed' });
  });
});
