import { afterEach, describe, expect, it } from 'vitest';
import { createTransaction } from '../../src/services/transactions/index.js';
import { queryTransaction, showTransaction } from '../../src/services/transactions/query.js';
import { cancelCheckout, CHANNEL_GRACE_MS, completeThreeDs, expireStalePages, getPage, submitCheckoutCard } from '../../src/services/pages.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { createPlan } from '../../src/services/plans.js';
import { CLOSED_NOTIFY_URL, testApp, testMerchant, type TestApp } from '../helpers/ctx.js';

let app: TestApp;
afterEach(() => app?.close());

const urls = { returnUrl: 'https://shop.example/ok', failedUrl: 'https://shop.example/failed', cancelUrl: 'https://shop.example/cancel' };
const pageCard = (cardNumber = '4242424242424242') => ({ holderName: 'Ada', cardNumber, month: '12', year: '2030', cvv: '123' });
let seq = 0;

function setup() {
  app = testApp();
  const ctx = app.ctx;
  const m = requireMerchant(ctx, testMerchant(ctx, { name: 'Acme Books', notifyUrl: CLOSED_NOTIFY_URL }).merchantId);
  const checkout = async (over: Record<string, unknown> = {}) => {
    seq++;
    const v = await createTransaction(ctx, m, {
      requestId: `c${seq}`, relationId: `c${seq}`, paymentType: 'CHECKOUT', payAmount: '25.50', currency: 'USD',
      items: JSON.stringify([{ name: 'Book', price: '25.50', num: '1' }]), ...urls, ...over,
    });
    return { v, token: String(v.url).split('/').pop() ?? '' };
  };
  return { ctx, m, checkout };
}

const status = (id: string) => (app.ctx.sqlite.prepare('SELECT status FROM transactions WHERE id = ?').get(id) as { status: number }).status;
const events = () => (app.ctx.sqlite.prepare('SELECT event_type, payload FROM outbox_events ORDER BY seq').all() as { event_type: string; payload: string }[]);

describe('checkout page', () => {
  it('shows merchant, amount, currency and items', async () => {
    const { ctx, checkout } = setup();
    const { v, token } = await checkout();
    expect(getPage(ctx, 'checkout', token)).toMatchObject({
      kind: 'checkout', token, transactionOrderId: v.transactionOrderId, merchantName: 'Acme Books', amount: '25.50', currency: 'USD',
      items: [{ name: 'Book', price: '25.50', num: '1' }], status: 100050, declines: 0,
    });
  });

  it('a good card succeeds → returnUrl, PAYMENT callback; the token then stops working', async () => {
    const { ctx, checkout } = setup();
    const { v, token } = await checkout();
    const out = await submitCheckoutCard(ctx, token, pageCard());
    expect(out).toMatchObject({ result: 'succeeded', redirectUrl: urls.returnUrl });
    expect(status(v.transactionOrderId)).toBe(200000);
    expect(events().map((e) => e.event_type)).toEqual(['PAYMENT']);
    expect(() => getPage(ctx, 'checkout', token)).toThrow(expect.objectContaining({ code: '1007' }));
  });

  it('a declined card shows the reason and lets the user retry; the third decline ends FAILED → failedUrl', async () => {
    const { ctx, checkout } = setup();
    const { v, token } = await checkout();
    const a = await submitCheckoutCard(ctx, token, pageCard('4000000000000002'));
    expect(a).toMatchObject({ result: 'declined_retry', failReason: 'card_declined' });
    expect(a.view.declines).toBe(1);
    const b = await submitCheckoutCard(ctx, token, pageCard('4000000000009995'));
    expect(b).toMatchObject({ result: 'declined_retry', failReason: 'insufficient_funds' });
    expect(events()).toHaveLength(0);
    const c = await submitCheckoutCard(ctx, token, pageCard('4000000000000002'));
    expect(c).toMatchObject({ result: 'failed', redirectUrl: urls.failedUrl, failReason: 'card_declined' });
    expect(status(v.transactionOrderId)).toBe(300000);
    expect(events().map((e) => e.event_type)).toEqual(['PAYMENT']);
  });

  it('a card failing local checks is a retry that does not count as a decline and charges nothing', async () => {
    const { ctx, checkout } = setup();
    const { token } = await checkout();
    const out = await submitCheckoutCard(ctx, token, pageCard('4242424242424241'));
    expect(out.result).toBe('declined_retry');
    expect(out.failReason).toMatch(/Luhn/);
    expect(out.view.declines).toBe(0);
    expect((ctx.sqlite.prepare('SELECT count(*) AS n FROM sandbox_charges').get() as { n: number }).n).toBe(0);
  });

  it('a 3DS card goes to the 3DS page, and Complete succeeds', async () => {
    const { ctx, checkout } = setup();
    const { v, token } = await checkout();
    const out = await submitCheckoutCard(ctx, token, pageCard('4000000000003220'));
    expect(out).toMatchObject({ result: 'three_ds', redirectUrl: `/3ds/${token}` });
    expect(getPage(ctx, '3ds', token).status).toBe(100040);
    expect(() => getPage(ctx, 'checkout', token)).toThrow(expect.objectContaining({ code: '1007' }));
    expect((await completeThreeDs(ctx, token, true)).result).toBe('succeeded');
    expect(status(v.transactionOrderId)).toBe(200000);
  });

  it('Cancel → 300020 → cancelUrl with a callback', async () => {
    const { ctx, checkout } = setup();
    const { v, token } = await checkout();
    expect(cancelCheckout(ctx, token)).toMatchObject({ result: 'cancelled', redirectUrl: urls.cancelUrl });
    expect(status(v.transactionOrderId)).toBe(300020);
    expect(JSON.parse(events()[0]?.payload ?? '{}')).toMatchObject({ status: '300020' });
    expect(() => cancelCheckout(ctx, token)).toThrow(expect.objectContaining({ code: '1007' }));
  });

  it('without URLs the outcome has no redirect (the page shows the result)', async () => {
    const { ctx, checkout } = setup();
    const { token } = await checkout({ returnUrl: undefined, failedUrl: undefined, cancelUrl: undefined });
    const out = await submitCheckoutCard(ctx, token, pageCard());
    expect(out.result).toBe('succeeded');
    expect(out.redirectUrl).toBeUndefined();
  });

  it('unknown tokens are 1007', () => {
    const { ctx } = setup();
    expect(() => getPage(ctx, 'checkout', 'nope')).toThrow(expect.objectContaining({ code: '1007' }));
    expect(() => getPage(ctx, '3ds', '')).toThrow(expect.objectContaining({ code: '1007' }));
  });
});

describe('30-minute expiry', () => {
  it('an expired checkout token turns the transaction EXPIRED (300010) first, then answers 1007', async () => {
    const { ctx, checkout } = setup();
    const { v, token } = await checkout();
    app.clock.advance(29 * 60_000);
    expect(getPage(ctx, 'checkout', token).status).toBe(100050);
    app.clock.advance(60_000);
    expect(() => getPage(ctx, 'checkout', token)).toThrow(expect.objectContaining({ code: '1007' }));
    expect(status(v.transactionOrderId)).toBe(300010);
    expect(JSON.parse(events()[0]?.payload ?? '{}')).toMatchObject({ status: '300010' });
  });

  it('querying a transaction whose page ran out reports it EXPIRED (300010), with its callback, not still open', async () => {
    const { ctx, m, checkout } = setup();
    const { v } = await checkout();
    app.clock.advance(30 * 60_000);
    const q = queryTransaction(ctx, m.id, { transactionOrderId: v.transactionOrderId });
    expect(q.status).toBe('300010');
    expect(q).not.toHaveProperty('url');
    expect(status(v.transactionOrderId)).toBe(300010);
    expect(events().map((e) => e.event_type)).toEqual(['PAYMENT']);
    expect(String(showTransaction(ctx, v.transactionOrderId).status)).toBe('300010');
  });

  it('a card submitted in the last second is recorded even if the expiry sweep runs while the channel answers', async () => {
    const { ctx, checkout } = setup();
    const { v, token } = await checkout();
    app.clock.advance(30 * 60_000 - 1_000);
    const real = ctx.channel;
    ctx.channel = {
      ...real,
      charge: async (req) => {
        app.clock.advance(5_000); // the channel takes its time; meanwhile the page's 30 minutes run out
        expect(expireStalePages(ctx)).toBe(0);
        return real.charge(req);
      },
    };
    expect(await submitCheckoutCard(ctx, token, pageCard())).toMatchObject({ result: 'succeeded' });
    expect(status(v.transactionOrderId)).toBe(200000);
    expect(events().map((e) => e.event_type)).toEqual(['PAYMENT']);
  });

  it('a 3DS Complete in the last second is recorded even if the expiry sweep runs meanwhile', async () => {
    const { ctx, checkout } = setup();
    const { v, token } = await checkout();
    await submitCheckoutCard(ctx, token, pageCard('4000000000003220'));
    app.clock.advance(30 * 60_000 - 1_000);
    const real = ctx.channel;
    ctx.channel = {
      ...real,
      completeAction: async (ref, passed) => {
        app.clock.advance(5_000);
        expect(expireStalePages(ctx)).toBe(0);
        return real.completeAction(ref, passed);
      },
    };
    expect((await completeThreeDs(ctx, token, true)).result).toBe('succeeded');
    expect(status(v.transactionOrderId)).toBe(200000);
  });

  it('a page held for the channel still expires once the grace has passed without an answer recorded', async () => {
    const { ctx, checkout } = setup();
    const { v, token } = await checkout();
    app.clock.advance(30 * 60_000 - 1_000);
    const real = ctx.channel;
    ctx.channel = { ...real, charge: () => Promise.reject(new Error('channel unreachable')) };
    await expect(submitCheckoutCard(ctx, token, pageCard())).rejects.toThrow('channel unreachable');
    app.clock.advance(CHANNEL_GRACE_MS);
    expect(expireStalePages(ctx)).toBe(1);
    expect(status(v.transactionOrderId)).toBe(300010);
  });

  it('expireStalePages expires every stale 3DS/checkout session and counts them; an INCOMPLETE subscription becomes EXPIRED', async () => {
    const { ctx, m, checkout } = setup();
    await checkout();
    await checkout();
    const p = createPlan(ctx, m.id, { planName: 'P', price: '5.00', currency: 'USD', cycleType: 'MONTHLY', cycleLength: 1 });
    const sub = await createTransaction(ctx, m, {
      requestId: 's', relationId: 's', paymentType: 'SUBSCRIPTION', planId: p.planId, userId: 'u',
      cardInfo: JSON.stringify({ cardNumber: '4000000000003220', month: '12', year: '2030', cvv: '123' }),
    });
    expect(sub.status).toBe('100040');
    expect(expireStalePages(ctx)).toBe(0);
    app.clock.advance(30 * 60_000);
    expect(expireStalePages(ctx)).toBe(3);
    expect(expireStalePages(ctx)).toBe(0);
    expect(status(sub.transactionOrderId)).toBe(300010);
    const s = ctx.sqlite.prepare('SELECT status, card_id FROM subscriptions').get() as { status: string; card_id: string | null };
    expect(s).toEqual({ status: 'EXPIRED', card_id: null });
    expect(events().map((e) => e.event_type).sort()).toEqual(['PAYMENT', 'PAYMENT', 'PAYMENT', 'SUBSCRIPTION_EXPIRED']);
    const failReason = (ctx.sqlite.prepare('SELECT fail_reason AS f FROM transactions WHERE id = ?').get(sub.transactionOrderId) as { f: string }).f;
    expect(failReason).toBe('authentication_expired');
    expect((ctx.sqlite.prepare('SELECT current_subscriptions AS n FROM plans').get() as { n: number }).n).toBe(0);
  });
});
