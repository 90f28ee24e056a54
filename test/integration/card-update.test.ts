import { afterEach, describe, expect, it } from 'vitest';
import { CLOSED_NOTIFY_URL, testApp, type TestApp } from '../helpers/ctx.js';
import { rowsOf } from '../helpers/rows.js';
import { cardYear } from '../helpers/cards.js';
import { merchantWithPlan, records, subRow, subscribe } from '../helpers/subscriptions.js';
import { updateCard } from '../../src/services/card-update/index.js';
import { getCardPage, submitCardPage } from '../../src/services/card-update/page.js';
import { completeThreeDs } from '../../src/services/pages.js';
import { pauseSubscription, cancelSubscription, subscriptionDetail } from '../../src/services/subscriptions/index.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { isPaygateError } from '../../src/domain/errors.js';
import { parseTime } from '../../src/domain/time.js';
import type { Ctx } from '../../src/ctx.js';

let app: TestApp;
afterEach(async () => app?.close());
const t = (s: string): number => parseTime(s, 'UTC');
const cardInfo = (ctx: Ctx, cardNumber: string) => ({
  holderName: 'Ada',
  cardNumber,
  month: '12',
  year: cardYear(ctx.clock.now()),
  cvv: '123',
});
const cardsStored = async (ctx: Ctx): Promise<number> =>
  (await rowsOf(ctx).get<{ n: number }>('SELECT count(*) AS n FROM cards')).n;
const renewFailed = async (a: TestApp, id: string): Promise<Record<string, string>[]> =>
  (
    await rowsOf(a.ctx).all<{ payload: string }>(
      "SELECT payload FROM outbox_events WHERE subscription_id = ? AND event_type = 'RENEW_FAILED' ORDER BY seq",
      id,
    )
  ).map((r) => JSON.parse(r.payload) as Record<string, string>);
const cardOf = (ctx: Ctx, subscriptionId: string): Promise<unknown> =>
  rowsOf(ctx).get(
    'SELECT c.last4 FROM subscriptions s JOIN cards c ON c.id = s.card_id WHERE s.id = ?',
    subscriptionId,
  );
const codeOf = (p: Promise<unknown>): Promise<string | undefined> =>
  p.then(
    () => undefined,
    (e: unknown) => (isPaygateError(e) ? e.code : 'thrown'),
  );
const tokenOf = (url: string | undefined): string => (url ?? '').split('/card/')[1] ?? '';

/** A subscription on 4000000000000341 whose first renewal (Feb 15) has just failed. */
async function failing(a: TestApp): Promise<{ merchantId: string; subscriptionId: string }> {
  const { ctx, clock } = a;
  const { merchantId, planId } = await merchantWithPlan(ctx, {}, { notifyUrl: CLOSED_NOTIFY_URL });
  const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000000341' });
  clock.set(t('2026-02-15 09:00:00'));
  expect(await runRenewal(ctx)).toMatchObject({ failed: 1, retriesScheduled: 1 });
  return { merchantId, subscriptionId: sub.subscriptionId };
}

describe('card update', () => {
  it('replaces the card of a retrying subscription, makes the retry due at once, and the next run charges it keeping the anchor', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, subscriptionId } = await failing(app);
    expect((await subscriptionDetail(ctx, merchantId, subscriptionId)).nextBillingTime).toBe('2026-02-16 09:00:00');
    clock.set(t('2026-02-15 18:30:00'));
    const r = await updateCard(ctx, merchantId, {
      subscriptionId,
      cardInfo: JSON.stringify(cardInfo(ctx, '4242424242424242')),
    });
    expect(r).toMatchObject({
      subscriptionId,
      status: '200000',
      card: '424242******4242',
      nextBillingTime: '2026-02-15 18:30:00',
    });
    expect(await cardsStored(ctx)).toBe(1); // the old card is gone
    expect(await runRenewal(ctx)).toMatchObject({ due: 1, succeeded: 1 });
    const recs = await records(ctx, subscriptionId);
    expect(recs.map((x) => [x.billing_type, x.status])).toEqual([
      ['INITIAL', 'SUCCESS'],
      ['RENEW', 'FAILED'],
      ['RETRY', 'SUCCESS'],
      ['RENEW', 'PENDING'],
    ]);
    // The anchor is kept: the next renewal is on the 15th, not a month after the retry.
    expect((await subscriptionDetail(ctx, merchantId, subscriptionId)).nextBillingTime).toBe('2026-03-15 09:00:00');
    expect(await subRow(ctx, subscriptionId)).toMatchObject({
      status: 'ACTIVE',
      anchor_time: t('2026-01-15 09:00:00'),
      card_update_token: null,
    });
  });

  it('RENEW_FAILED callbacks carry updateCardUrl; every retry names the same page; it ends when used', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { subscriptionId } = await failing(app);
    clock.set(t('2026-02-16 09:00:00'));
    await runRenewal(ctx);
    const [first, second] = await renewFailed(app, subscriptionId);
    expect(first?.updateCardUrl).toMatch(new RegExp(`^${ctx.config.publicUrl}/card/[A-Za-z0-9_-]{20,}$`));
    expect(second?.updateCardUrl).toBe(first?.updateCardUrl);
    const token = tokenOf(first?.updateCardUrl);
    expect(await getCardPage(ctx, token)).toMatchObject({ amount: '9.99', currency: 'USD', last4: '0341' });
    const out = await submitCardPage(ctx, token, {
      holderName: 'Ada',
      cardNumber: '4242424242424242',
      month: '12',
      year: cardYear(ctx.clock.now()),
      cvv: '123',
    });
    expect(out.result).toBe('updated');
    expect(await codeOf(getCardPage(ctx, token))).toBe('1007');
  });

  it('the link stops working after its third failed card check; the next RENEW_FAILED issues a new link', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, subscriptionId } = await failing(app);
    const token = tokenOf((await renewFailed(app, subscriptionId))[0]?.updateCardUrl);
    for (const cardNumber of ['4000000000000002', '4000000000009995']) {
      expect((await submitCardPage(ctx, token, cardInfo(ctx, cardNumber))).result).toBe('declined');
    }
    // A failed check through the API counts too: the limit is the subscription's, per link.
    expect(
      (await updateCard(ctx, merchantId, { subscriptionId, cardInfo: cardInfo(ctx, '4000000000000002') })).status,
    ).toBe('300000');
    expect(await codeOf(getCardPage(ctx, token))).toBe('1007');
    expect(await codeOf(submitCardPage(ctx, token, cardInfo(ctx, '4242424242424242')))).toBe('1007');
    expect(await cardOf(ctx, subscriptionId)).toEqual({ last4: '0341' });
    // The retry fails again: its callback names a new page, with its own three tries.
    clock.set(t('2026-02-16 09:00:00'));
    await runRenewal(ctx);
    const next = tokenOf((await renewFailed(app, subscriptionId))[1]?.updateCardUrl);
    expect(next).not.toBe(token);
    expect((await submitCardPage(ctx, next, cardInfo(ctx, '4242424242424242'))).result).toBe('updated');
  });

  it('concurrent submissions on one link get at most three checks through, one at a time', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx } = app;
    const { subscriptionId } = await failing(app);
    const token = tokenOf((await renewFailed(app, subscriptionId))[0]?.updateCardUrl);
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () =>
        submitCardPage(ctx, token, cardInfo(ctx, '4000000000000002')).then(
          (o) => o.result,
          (e: unknown) => (isPaygateError(e) ? e.code : 'thrown'),
        ),
      ),
    );
    const declined = outcomes.filter((o) => o === 'declined').length;
    expect(declined).toBeGreaterThanOrEqual(1);
    expect(declined).toBeLessThanOrEqual(3);
    // The others were told the link is in use (a check under way) or used up (1007).
    expect(outcomes.filter((o) => o !== 'declined').every((o) => o === 'used' || o === '1007')).toBe(true);
    const checks = await rowsOf(ctx).get<{ n: number }>(
      "SELECT count(*) AS n FROM transactions WHERE subscription_id = ? AND payment_type = 'CARD_CHECK'",
      subscriptionId,
    );
    expect(checks.n).toBe(declined);
  });

  it('a link issued by a run whose clock is ahead still stops after three failed checks on the clock of the page', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    // The renewal ran as `renew --at 2026-02-15 09:00:00`; the page is served on a clock weeks behind it.
    const { subscriptionId } = await failing(app);
    const token = tokenOf((await renewFailed(app, subscriptionId))[0]?.updateCardUrl);
    clock.set(t('2026-01-20 12:00:00'));
    for (const cardNumber of ['4000000000000002', '4000000000009995', '4000000000000002']) {
      expect((await submitCardPage(ctx, token, cardInfo(ctx, cardNumber))).result).toBe('declined');
    }
    expect(await codeOf(getCardPage(ctx, token))).toBe('1007');
    expect(await codeOf(submitCardPage(ctx, token, cardInfo(ctx, '4242424242424242')))).toBe('1007');
    expect(await cardOf(ctx, subscriptionId)).toEqual({ last4: '0341' });
  });

  it('two concurrent submissions on one link: one card is saved, the other is told the link was already used', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx } = app;
    const { subscriptionId } = await failing(app);
    const token = tokenOf((await renewFailed(app, subscriptionId))[0]?.updateCardUrl);
    const cards = ['4242424242424242', '5555555555554444'];
    const outcomes = await Promise.all(
      cards.map((n) =>
        submitCardPage(ctx, token, cardInfo(ctx, n)).then(
          (o) => o.result,
          (e: unknown) => (isPaygateError(e) ? e.code : 'thrown'),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'updated')).toHaveLength(1);
    // 'used' while the first was being checked; 1007 (the no-longer-available page) once it was saved.
    expect(outcomes.filter((o) => o === 'used' || o === '1007')).toHaveLength(1);
    const saved = cards[outcomes.indexOf('updated')] ?? '';
    expect(await cardOf(ctx, subscriptionId)).toEqual({ last4: saved.slice(-4) });
    expect(await cardsStored(ctx)).toBe(1);
  });

  it('a card entered while the previous one waits for 3-D Secure leads to that challenge, not to a second check', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx } = app;
    const { subscriptionId } = await failing(app);
    const token = tokenOf((await renewFailed(app, subscriptionId))[0]?.updateCardUrl);
    const first = await submitCardPage(ctx, token, cardInfo(ctx, '4000000000003220'));
    expect(first.result).toBe('three_ds');
    const second = await submitCardPage(ctx, token, cardInfo(ctx, '4242424242424242'));
    expect(second).toMatchObject({ result: 'three_ds', redirectUrl: first.redirectUrl });
    const checks = await rowsOf(ctx).get<{ n: number }>(
      "SELECT count(*) AS n FROM transactions WHERE subscription_id = ? AND payment_type = 'CARD_CHECK'",
      subscriptionId,
    );
    expect(checks.n).toBe(1);
  });

  it('the link works at most 7 days and only while the subscription retries', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, subscriptionId } = await failing(app);
    const token = tokenOf((await renewFailed(app, subscriptionId))[0]?.updateCardUrl);
    clock.set(t('2026-02-22 08:59:00'));
    await expect(getCardPage(ctx, token)).resolves.toMatchObject({ token });
    clock.set(t('2026-02-22 09:00:00'));
    expect(await codeOf(getCardPage(ctx, token))).toBe('1007');
    clock.set(t('2026-02-16 09:00:00'));
    await pauseSubscription(ctx, merchantId, subscriptionId);
    expect(await codeOf(getCardPage(ctx, token))).toBe('1007');
  });

  it('a declined check keeps the old card; a card failing the local checks is 1011; PAUSED is allowed, CANCELLED is 1008', async () => {
    app = await testApp();
    const { ctx } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const { subscriptionId } = await subscribe(ctx, merchantId, planId);
    const declined = await updateCard(ctx, merchantId, { subscriptionId, cardInfo: cardInfo(ctx, '4000000000000002') });
    expect(declined).toMatchObject({ status: '300000', failReason: 'card_declined', card: '424242******4242' });
    expect(await cardsStored(ctx)).toBe(1);
    expect(
      await codeOf(updateCard(ctx, merchantId, { subscriptionId, cardInfo: cardInfo(ctx, '4242424242424241') })),
    ).toBe('1011');
    await pauseSubscription(ctx, merchantId, subscriptionId);
    expect(
      await updateCard(ctx, merchantId, { subscriptionId, cardInfo: cardInfo(ctx, '5555555555554444') }),
    ).toMatchObject({ status: '200000', card: '555555******4444' });
    await cancelSubscription(ctx, merchantId, subscriptionId);
    expect(
      await codeOf(updateCard(ctx, merchantId, { subscriptionId, cardInfo: cardInfo(ctx, '4242424242424242') })),
    ).toBe('1008');
    expect(
      await codeOf(
        updateCard(ctx, merchantId, { subscriptionId: 'sub_nope', cardInfo: cardInfo(ctx, '4242424242424242') }),
      ),
    ).toBe('1007');
    expect(await cardsStored(ctx)).toBe(0);
  });

  it('a card that asks for 3DS answers 100040 with the page; completing it replaces the card, failing it keeps the old one', async () => {
    app = await testApp();
    const { ctx } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const { subscriptionId } = await subscribe(ctx, merchantId, planId);
    const asked = await updateCard(ctx, merchantId, { subscriptionId, cardInfo: cardInfo(ctx, '4000000000003220') });
    expect(asked).toMatchObject({ status: '100040', card: '424242******4242' });
    expect(asked.url).toMatch(/\/3ds\//);
    const done = await completeThreeDs(ctx, (asked.url ?? '').split('/3ds/')[1] ?? '', true);
    expect(done.result).toBe('succeeded');
    expect((await subscriptionDetail(ctx, merchantId, subscriptionId)).status).toBe('ACTIVE');
    expect(await cardOf(ctx, subscriptionId)).toEqual({ last4: '3220' });
    const again = await updateCard(ctx, merchantId, { subscriptionId, cardInfo: cardInfo(ctx, '4000002500003155') });
    await completeThreeDs(ctx, (again.url ?? '').split('/3ds/')[1] ?? '', false);
    expect(await cardOf(ctx, subscriptionId)).toEqual({ last4: '3220' });
    expect(await cardsStored(ctx)).toBe(1);
    // A card check sends no PAYMENT callback: nothing was paid.
    expect(
      await rowsOf(ctx).get(
        "SELECT count(*) AS n FROM outbox_events o JOIN transactions t ON t.id = o.transaction_id WHERE t.payment_type = 'CARD_CHECK'",
      ),
    ).toEqual({ n: 0 });
  });
});
