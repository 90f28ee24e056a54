import { rowsOf } from '../helpers/rows.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransaction } from '../../src/services/transactions/index.js';
import { queryTransaction, showTransaction } from '../../src/services/transactions/query.js';
import {
  cancelCheckout,
  CHANNEL_GRACE_MS,
  completeThreeDs,
  expireStalePages,
  getPage,
  PageExpiredError,
  PageMovedError,
  submitCheckoutCard,
} from '../../src/services/pages.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { createPlan } from '../../src/services/plans.js';
import { CLOSED_NOTIFY_URL, testApp, testMerchant, type TestApp, TEST_NOW } from '../helpers/ctx.js';
import { cardYear } from '../helpers/cards.js';

let app: TestApp;
afterEach(async () => app?.close());

const urls = {
  returnUrl: 'https://shop.example/ok',
  failedUrl: 'https://shop.example/failed',
  cancelUrl: 'https://shop.example/cancel',
};
const pageCard = (cardNumber = '4242424242424242') => ({
  holderName: 'Ada',
  cardNumber,
  month: '12',
  year: cardYear(TEST_NOW),
  cvv: '123',
});
let seq = 0;

async function setup() {
  app = await testApp();
  const ctx = app.ctx;
  const m = await requireMerchant(
    ctx,
    (await testMerchant(ctx, { name: 'Acme Books', notifyUrl: CLOSED_NOTIFY_URL })).merchantId,
  );
  const checkout = async (over: Record<string, unknown> = {}) => {
    seq++;
    const v = await createTransaction(ctx, m, {
      requestId: `c${seq}`,
      relationId: `c${seq}`,
      paymentType: 'CHECKOUT',
      payAmount: '25.50',
      currency: 'USD',
      items: JSON.stringify([{ name: 'Book', price: '25.50', num: '1' }]),
      ...urls,
      ...over,
    });
    return { v, token: String(v.url).split('/').pop() ?? '' };
  };
  return { ctx, m, checkout };
}

const status = async (id: string) =>
  ((await rowsOf(app.ctx).get('SELECT status FROM transactions WHERE id = ?', id)) as { status: number }).status;
const events = async () =>
  (await rowsOf(app.ctx).all('SELECT event_type, payload FROM outbox_events ORDER BY seq')) as {
    event_type: string;
    payload: string;
  }[];

describe('checkout page', () => {
  it('shows merchant, amount, currency and items', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    expect(await getPage(ctx, 'checkout', token)).toMatchObject({
      kind: 'checkout',
      token,
      transactionOrderId: v.transactionOrderId,
      merchantName: 'Acme Books',
      amount: '25.50',
      currency: 'USD',
      items: [{ name: 'Book', price: '25.50', num: '1' }],
      status: 100050,
      declines: 0,
    });
  });

  it('a good card succeeds → returnUrl, PAYMENT callback; the token then stops working', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    const out = await submitCheckoutCard(ctx, token, pageCard());
    expect(out).toMatchObject({ result: 'succeeded', redirectUrl: urls.returnUrl });
    expect(await status(v.transactionOrderId)).toBe(200000);
    expect((await events()).map((e) => e.event_type)).toEqual(['PAYMENT']);
    await expect(getPage(ctx, 'checkout', token)).rejects.toThrow(expect.objectContaining({ code: '1007' }));
  });

  it('a declined card shows the reason and lets the user retry; the third decline ends FAILED → failedUrl', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    const a = await submitCheckoutCard(ctx, token, pageCard('4000000000000002'));
    expect(a).toMatchObject({ result: 'declined_retry', failReason: 'card_declined' });
    expect(a.view.declines).toBe(1);
    const b = await submitCheckoutCard(ctx, token, pageCard('4000000000009995'));
    expect(b).toMatchObject({ result: 'declined_retry', failReason: 'insufficient_funds' });
    expect(await events()).toHaveLength(0);
    const c = await submitCheckoutCard(ctx, token, pageCard('4000000000000002'));
    expect(c).toMatchObject({ result: 'failed', redirectUrl: urls.failedUrl, failReason: 'card_declined' });
    expect(await status(v.transactionOrderId)).toBe(300000);
    expect((await events()).map((e) => e.event_type)).toEqual(['PAYMENT']);
  });

  it('a card failing local checks is a retry that does not count as a decline and charges nothing', async () => {
    const { ctx, checkout } = await setup();
    const { token } = await checkout();
    const out = await submitCheckoutCard(ctx, token, pageCard('4242424242424241'));
    expect(out.result).toBe('declined_retry');
    expect(out.failReason).toMatch(/Luhn/);
    expect(out.view.declines).toBe(0);
    expect(((await rowsOf(ctx).get('SELECT count(*) AS n FROM sandbox_charges')) as { n: number }).n).toBe(0);
  });

  it('a 3DS card goes to the 3DS page, and Complete succeeds', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    const out = await submitCheckoutCard(ctx, token, pageCard('4000000000003220'));
    expect(out).toMatchObject({ result: 'three_ds', redirectUrl: `/3ds/${token}` });
    expect((await getPage(ctx, '3ds', token)).status).toBe(100040);
    await expect(getPage(ctx, 'checkout', token)).rejects.toThrow(PageMovedError);
    expect((await completeThreeDs(ctx, token, true)).result).toBe('succeeded');
    expect(await status(v.transactionOrderId)).toBe(200000);
  });

  it('Cancel → 300020 → cancelUrl with a callback', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    expect(await cancelCheckout(ctx, token)).toMatchObject({ result: 'cancelled', redirectUrl: urls.cancelUrl });
    expect(await status(v.transactionOrderId)).toBe(300020);
    expect(JSON.parse((await events())[0]?.payload ?? '{}')).toMatchObject({ status: '300020' });
    await expect(cancelCheckout(ctx, token)).rejects.toThrow(expect.objectContaining({ code: '1007' }));
  });

  it('without URLs the outcome has no redirect (the page shows the result)', async () => {
    const { ctx, checkout } = await setup();
    const { token } = await checkout({ returnUrl: undefined, failedUrl: undefined, cancelUrl: undefined });
    const out = await submitCheckoutCard(ctx, token, pageCard());
    expect(out.result).toBe('succeeded');
    expect(out.redirectUrl).toBeUndefined();
  });

  it('unknown tokens are 1007', async () => {
    const { ctx } = await setup();
    await expect(getPage(ctx, 'checkout', 'nope')).rejects.toThrow(expect.objectContaining({ code: '1007' }));
    await expect(getPage(ctx, '3ds', '')).rejects.toThrow(expect.objectContaining({ code: '1007' }));
  });
});

const charges = async (id: string) =>
  (
    (await rowsOf(app.ctx).all(
      'SELECT idempotency_key AS k, card_last4 AS last4, outcome FROM sandbox_charges WHERE idempotency_key LIKE ? ORDER BY idempotency_key',
      `${id}:%`,
    )) as { k: string; last4: string; outcome: string }[]
  ).map((c) => `${c.k.slice(id.length)} ${c.last4} ${c.outcome}`);

describe('checkout page waiting on its 3-D Secure check (the back button from the challenge)', () => {
  it('its checkout URL sends on to the 3DS page: GET, the same card again and Cancel charge nothing more', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    await submitCheckoutCard(ctx, token, pageCard('4000000000003220'));
    const moved = await getPage(ctx, 'checkout', token).catch((e: unknown) => e);
    expect(moved).toBeInstanceOf(PageMovedError);
    expect((moved as PageMovedError).outcome).toMatchObject({ result: 'three_ds', redirectUrl: `/3ds/${token}` });
    // The form submitted again (back, then Pay): no second charge, on to the same challenge.
    expect(await submitCheckoutCard(ctx, token, pageCard('4000000000003220'))).toMatchObject({
      result: 'three_ds',
      redirectUrl: `/3ds/${token}`,
    });
    await expect(cancelCheckout(ctx, token)).rejects.toThrow(PageMovedError);
    expect(await status(v.transactionOrderId)).toBe(100040);
    expect(await charges(v.transactionOrderId)).toEqual([':1 3220 requires_action']);
    expect((await completeThreeDs(ctx, token, true)).result).toBe('succeeded');
    await expect(getPage(ctx, 'checkout', token)).rejects.toThrow(expect.objectContaining({ code: '1007' }));
    await expect(getPage(ctx, 'checkout', token)).rejects.not.toThrow(PageMovedError);
  });

  it('another card submitted on it is not tried and not sent to that card’s challenge', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    await submitCheckoutCard(ctx, token, pageCard('4000000000003220'));
    expect(await submitCheckoutCard(ctx, token, pageCard())).toMatchObject({
      result: 'not_tried',
      otherCard: 'three_ds',
      view: { status: 100040 },
    });
    expect(await charges(v.transactionOrderId)).toEqual([':1 3220 requires_action']);
  });

  it('past its 30 minutes its checkout URL expires it (not a redirect to a dead challenge)', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    await submitCheckoutCard(ctx, token, pageCard('4000000000003220'));
    app.clock.advance(30 * 60_000);
    await expect(getPage(ctx, 'checkout', token)).rejects.toThrow(PageExpiredError);
    expect(await status(v.transactionOrderId)).toBe(300010);
  });
});

describe('two tabs of one checkout: each attempt is charged with one card only', () => {
  /** Tab B's submit, made while tab A's card is with the channel. */
  function duringCharge(ctx: TestApp['ctx'], tabB: () => Promise<unknown>): { out: () => unknown } {
    const real = ctx.channel;
    let out: unknown;
    let done = false;
    ctx.channel = {
      ...real,
      charge: async (req) => {
        if (!done) {
          done = true;
          out = await tabB();
        }
        return real.charge(req);
      },
    };
    return { out: () => out };
  }

  it('a different card submitted while a declined one is charged is not tried, then can be tried itself', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    const b = duringCharge(ctx, () => submitCheckoutCard(ctx, token, pageCard('4242424242424242')));
    expect(await submitCheckoutCard(ctx, token, pageCard('4000000000000002'))).toMatchObject({
      result: 'declined_retry',
      failReason: 'card_declined',
    });
    expect(b.out()).toMatchObject({ result: 'not_tried', otherCard: 'in_progress', view: { status: 100050 } });
    expect(await charges(v.transactionOrderId)).toEqual([':1 0002 declined']);
    // Tab B again: its card is tried now, as the next attempt.
    expect(await submitCheckoutCard(ctx, token, pageCard('4242424242424242'))).toMatchObject({ result: 'succeeded' });
    expect(await charges(v.transactionOrderId)).toEqual([':1 0002 declined', ':2 4242 approved']);
  });

  it('a different card submitted while a 3DS card is charged is not sent to its challenge', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    const b = duringCharge(ctx, () => submitCheckoutCard(ctx, token, pageCard('4242424242424242')));
    expect(await submitCheckoutCard(ctx, token, pageCard('4000000000003220'))).toMatchObject({ result: 'three_ds' });
    expect(b.out()).toMatchObject({ result: 'not_tried', otherCard: 'in_progress' });
    expect(await charges(v.transactionOrderId)).toEqual([':1 3220 requires_action']);
    expect(await status(v.transactionOrderId)).toBe(100040);
  });

  it('a different card read on the page before another was declined, submitted after, is not told that decline', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    // Tab B reads the page (no attempt yet), then waits while tab A's card is declined.
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const store = ctx.store;
    const read = store.getTransactionByPageToken.bind(store);
    let first = true;
    store.getTransactionByPageToken = async (t) => {
      const row = await read(t);
      if (first) {
        first = false;
        await gate;
      }
      return row;
    };
    const b = submitCheckoutCard(ctx, token, pageCard('4242424242424242'));
    await new Promise((r) => setTimeout(r, 20));
    expect(await submitCheckoutCard(ctx, token, pageCard('4000000000000002'))).toMatchObject({
      result: 'declined_retry',
    });
    release();
    expect(await b).toMatchObject({ result: 'not_tried', otherCard: 'declined', view: { declines: 1 } });
    expect(await charges(v.transactionOrderId)).toEqual([':1 0002 declined']);
  });

  it('the same card submitted twice (a double click) is charged once and both show its real result', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    const b = duringCharge(ctx, () => submitCheckoutCard(ctx, token, pageCard('4000000000000002')));
    expect(await submitCheckoutCard(ctx, token, pageCard('4000000000000002'))).toMatchObject({
      result: 'declined_retry',
      failReason: 'card_declined',
      view: { declines: 1 },
    });
    expect(b.out()).toMatchObject({ result: 'declined_retry', failReason: 'card_declined' });
    expect(await charges(v.transactionOrderId)).toEqual([':1 0002 declined']);

    const { v: w, token: t2 } = await checkout();
    const c = duringCharge(ctx, () => submitCheckoutCard(ctx, t2, pageCard()));
    expect(await submitCheckoutCard(ctx, t2, pageCard())).toMatchObject({ result: 'succeeded' });
    expect(c.out()).toMatchObject({ result: 'succeeded' });
    expect(await charges(w.transactionOrderId)).toEqual([':1 4242 approved']);
    expect(await status(w.transactionOrderId)).toBe(200000);
  });
});

describe('30-minute expiry', () => {
  it('an expired checkout token turns the transaction EXPIRED (300010) first, then answers 1007', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    app.clock.advance(29 * 60_000);
    expect((await getPage(ctx, 'checkout', token)).status).toBe(100050);
    app.clock.advance(60_000);
    await expect(getPage(ctx, 'checkout', token)).rejects.toThrow(expect.objectContaining({ code: '1007' }));
    expect(await status(v.transactionOrderId)).toBe(300010);
    expect(JSON.parse((await events())[0]?.payload ?? '{}')).toMatchObject({ status: '300010' });
  });

  it('querying a transaction whose page ran out reports it EXPIRED (300010), with its callback, not still open', async () => {
    const { ctx, m, checkout } = await setup();
    const { v } = await checkout();
    app.clock.advance(30 * 60_000);
    const q = await queryTransaction(ctx, m.id, { transactionOrderId: v.transactionOrderId });
    expect(q.status).toBe('300010');
    expect(q).not.toHaveProperty('url');
    expect(await status(v.transactionOrderId)).toBe(300010);
    expect((await events()).map((e) => e.event_type)).toEqual(['PAYMENT']);
    expect(String((await showTransaction(ctx, v.transactionOrderId)).status)).toBe('300010');
  });

  it('a card submitted in the last second is recorded even if the expiry sweep runs while the channel answers', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    app.clock.advance(30 * 60_000 - 1_000);
    const real = ctx.channel;
    ctx.channel = {
      ...real,
      charge: async (req) => {
        app.clock.advance(5_000); // the channel takes its time; meanwhile the page's 30 minutes run out
        expect(await expireStalePages(ctx)).toBe(0);
        return real.charge(req);
      },
    };
    expect(await submitCheckoutCard(ctx, token, pageCard())).toMatchObject({ result: 'succeeded' });
    expect(await status(v.transactionOrderId)).toBe(200000);
    expect((await events()).map((e) => e.event_type)).toEqual(['PAYMENT']);
  });

  it('a 3DS Complete in the last second is recorded even if the expiry sweep runs meanwhile', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    await submitCheckoutCard(ctx, token, pageCard('4000000000003220'));
    app.clock.advance(30 * 60_000 - 1_000);
    const real = ctx.channel;
    ctx.channel = {
      ...real,
      completeAction: async (ref, passed) => {
        app.clock.advance(5_000);
        expect(await expireStalePages(ctx)).toBe(0);
        return real.completeAction(ref, passed);
      },
    };
    expect((await completeThreeDs(ctx, token, true)).result).toBe('succeeded');
    expect(await status(v.transactionOrderId)).toBe(200000);
  });

  it('Cancel while the card is being charged answers processing; the approved charge is recorded, not cancelled', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    const real = ctx.channel;
    let cancelled: unknown;
    ctx.channel = {
      ...real,
      charge: async (req) => {
        // The shopper's second tab presses Cancel while the first tab's card is with the channel.
        cancelled = await cancelCheckout(ctx, token);
        return real.charge(req);
      },
    };
    expect(await submitCheckoutCard(ctx, token, pageCard())).toMatchObject({
      result: 'succeeded',
      redirectUrl: expect.stringContaining(urls.returnUrl),
    });
    expect(cancelled).toMatchObject({ result: 'processing' });
    expect(await status(v.transactionOrderId)).toBe(200000);
    expect((await events()).map((e) => e.event_type)).toEqual(['PAYMENT']);
  });

  it('after a declined card the page can be cancelled at once: the hold ends with the charge', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    expect(await submitCheckoutCard(ctx, token, pageCard('4000000000000002'))).toMatchObject({
      result: 'declined_retry',
    });
    expect(await cancelCheckout(ctx, token)).toMatchObject({ result: 'cancelled' });
    expect(await status(v.transactionOrderId)).toBe(300020);
  });

  it('a page held for the channel still expires once the grace has passed without an answer recorded', async () => {
    const { ctx, checkout } = await setup();
    const { v, token } = await checkout();
    app.clock.advance(30 * 60_000 - 1_000);
    const real = ctx.channel;
    ctx.channel = { ...real, charge: () => Promise.reject(new Error('channel unreachable')) };
    await expect(submitCheckoutCard(ctx, token, pageCard())).rejects.toThrow('channel unreachable');
    app.clock.advance(CHANNEL_GRACE_MS);
    expect(await expireStalePages(ctx)).toBe(1);
    expect(await status(v.transactionOrderId)).toBe(300010);
  });

  it('expireStalePages expires every stale 3DS/checkout session and counts them; an INCOMPLETE subscription becomes EXPIRED', async () => {
    const { ctx, m, checkout } = await setup();
    await checkout();
    await checkout();
    const p = await createPlan(ctx, m.id, {
      planName: 'P',
      price: '5.00',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    const sub = await createTransaction(ctx, m, {
      requestId: 's',
      relationId: 's',
      paymentType: 'SUBSCRIPTION',
      planId: p.planId,
      userId: 'u',
      cardInfo: JSON.stringify({ cardNumber: '4000000000003220', month: '12', year: cardYear(TEST_NOW), cvv: '123' }),
    });
    expect(sub.status).toBe('100040');
    expect(await expireStalePages(ctx)).toBe(0);
    app.clock.advance(30 * 60_000);
    expect(await expireStalePages(ctx)).toBe(3);
    expect(await expireStalePages(ctx)).toBe(0);
    expect(await status(sub.transactionOrderId)).toBe(300010);
    const s = (await rowsOf(ctx).get('SELECT status, card_id FROM subscriptions')) as {
      status: string;
      card_id: string | null;
    };
    expect(s).toEqual({ status: 'EXPIRED', card_id: null });
    expect((await events()).map((e) => e.event_type).sort()).toEqual([
      'PAYMENT',
      'PAYMENT',
      'PAYMENT',
      'SUBSCRIPTION_EXPIRED',
    ]);
    const failReason = (
      (await rowsOf(ctx).get('SELECT fail_reason AS f FROM transactions WHERE id = ?', sub.transactionOrderId)) as {
        f: string;
      }
    ).f;
    expect(failReason).toBe('authentication_expired');
    expect(((await rowsOf(ctx).get('SELECT current_subscriptions AS n FROM plans')) as { n: number }).n).toBe(0);
  });
});
