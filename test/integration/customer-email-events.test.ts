import { describe, expect, it } from 'vitest';
import { parseTime } from '../../src/domain/time.js';
import { deliverCustomerEmails } from '../../src/services/documents/email-delivery.js';
import { updateCard } from '../../src/services/card-update/index.js';
import { getCardPage } from '../../src/services/card-update/page.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { cancelSubscription, updateSubscription } from '../../src/services/subscriptions/index.js';
import { closeShopsAfterEach, emailRows, emailShop, SUBSCRIBER, subscriber } from '../helpers/email-shop.js';
import type { ReceivedMail } from '../helpers/smtp.js';

/**
 * The customer emails wired to their events (SPEC §17), written with the event and delivered
 * by the renewal run to a real SMTP server on loopback, on the run's engine.
 */
closeShopsAfterEach();
const t = (s: string): number => parseTime(s, 'UTC');
/** Declines every renewal (sandbox, SPEC §9). */
const DECLINING = '4000000000000341';

function expectWellFormed(got: ReceivedMail | undefined, to = SUBSCRIBER): void {
  expect(got?.envelope).toEqual({ from: 'billing@acme.test', to: [to] });
  expect(got?.mail.from?.value).toEqual([{ name: 'Acme Shop', address: 'billing@acme.test' }]);
  expect(got?.mail.text?.length).toBeGreaterThan(0);
  expect(got?.mail.html).toMatch(/^<!doctype html>/);
  const whole = `${got?.mail.subject}\n${got?.mail.text}\n${got?.mail.html}`;
  expect(whole).not.toMatch(/4242424242424242|4000000000000341/);
}

describe('customer emails of a subscription', () => {
  it('a failed renewal sends "renewal failed" once, with the card-update link and the card as brand and last four', async () => {
    const shop = await emailShop();
    await subscriber(shop, { card: DECLINING });
    shop.app.clock.set(t('2026-02-15 09:00:00'));
    expect(await runRenewal(shop.app.ctx)).toMatchObject({ retriesScheduled: 1, emailsSent: 1 });
    expect(shop.smtp.received).toHaveLength(1);
    const got = shop.smtp.received[0];
    expectWellFormed(got);
    expect(got?.mail.subject).toBe('Action needed: your payment to Acme Shop failed');
    expect(got?.mail.text).toMatch(/http:\/\/127\.0\.0\.1:8080\/card\/[\w-]+/);
    expect(got?.mail.text).toContain('VISA ••0341');
    expect(got?.mail.text).toContain('We will try again on 2026-02-16');
    expect((await emailRows(shop.app)).map((r) => [r.kind, r.status])).toEqual([['renewal-failed', 'SENT']]);
    // Another run delivers nothing more: the email went once.
    await runRenewal(shop.app.ctx);
    expect(shop.smtp.received).toHaveLength(1);
  });

  it('the last failed retry ends the subscription: "subscription ended" with its endTime', async () => {
    const shop = await emailShop();
    await subscriber(shop, { card: DECLINING });
    for (const when of ['2026-02-15', '2026-02-16', '2026-02-19', '2026-02-24']) {
      shop.app.clock.set(t(`${when} 09:00:00`));
      await runRenewal(shop.app.ctx);
    }
    expect((await emailRows(shop.app)).map((r) => r.kind)).toEqual([
      'renewal-failed',
      'renewal-failed',
      'renewal-failed',
      'subscription-ended',
    ]);
    const ended = shop.smtp.received.at(-1);
    expectWellFormed(ended);
    expect(ended?.mail.subject).toBe('Your subscription to Pro has ended');
    expect(ended?.mail.text).toContain('ended on 2026-02-24 09:00:00');
  });

  it('a cancelled subscription gets "subscription ended" with the end of its paid period', async () => {
    const shop = await emailShop();
    const sub = await subscriber(shop);
    shop.app.clock.set(t('2026-01-20 12:00:00'));
    await cancelSubscription(shop.app.ctx, shop.merchantId, sub.subscriptionId);
    await runRenewal(shop.app.ctx);
    expect(shop.smtp.received).toHaveLength(1);
    const got = shop.smtp.received[0];
    expectWellFormed(got);
    expect(got?.mail.subject).toBe('Your subscription to Pro has been cancelled');
    expect(got?.mail.text).toContain('It ends on 2026-02-15 09:00:00');
  });

  it('a card that expires before the next renewal is warned about 7 days ahead, once per renewal, with a working link', async () => {
    // Valid through January 2026; the renewal on 2026-02-15 would find it expired.
    const shop = await emailShop();
    await subscriber(shop, { month: '01', year: '2026' });
    shop.app.clock.set(t('2026-02-08 08:59:59'));
    await runRenewal(shop.app.ctx);
    expect(shop.smtp.received).toHaveLength(0);
    shop.app.clock.set(t('2026-02-08 09:00:00'));
    expect(await runRenewal(shop.app.ctx)).toMatchObject({ emailsSent: 1 });
    shop.app.clock.set(t('2026-02-10 09:00:00'));
    await runRenewal(shop.app.ctx);
    expect(shop.smtp.received).toHaveLength(1);
    const got = shop.smtp.received[0];
    expectWellFormed(got);
    // Sent on 2026-02-08, after January ended: the card has expired already (it said "expires soon").
    expect(got?.mail.subject).toBe('Your card for Acme Shop has expired');
    expect(got?.mail.text).toContain(
      'Your card VISA ••4242 expired at the end of 01/2026. Your next payment for Pro is due on 2026-02-15.',
    );
    const token = /\/card\/([\w-]+)/.exec(got?.mail.text ?? '')?.[1] ?? '';
    expect(await getCardPage(shop.app.ctx, token)).toMatchObject({ reason: 'expiring', amount: '9.99', last4: '4242' });
  });

  it('a card still valid when the warning is sent says it expires soon; sent only after its month ended, that it has expired', async () => {
    const shop = await emailShop();
    shop.app.clock.set(t('2026-01-01 09:00:00'));
    // Valid through January 2026; the renewal on 2026-02-01 would find it expired.
    await subscriber(shop, { month: '01', year: '2026' });
    shop.app.clock.set(t('2026-01-25 09:00:00'));
    expect(await runRenewal(shop.app.ctx)).toMatchObject({ emailsSent: 1 });
    const soon = shop.smtp.received[0];
    expectWellFormed(soon);
    expect(soon?.mail.subject).toBe('Your card for Acme Shop expires soon');
    expect(soon?.mail.text).toContain('expires at the end of 01/2026, before your next payment for Pro on 2026-02-01');

    // The same warning for another subscriber, first refused by the SMTP server, then sent on 1 February.
    const late = await emailShop();
    late.app.clock.set(t('2026-01-01 09:00:00'));
    await subscriber(late, { month: '01', year: '2026' });
    late.smtp.mode = 'refuse-message';
    late.app.clock.set(t('2026-01-31 22:00:00'));
    await runRenewal(late.app.ctx);
    expect(late.smtp.received).toHaveLength(0);
    late.smtp.mode = 'accept';
    late.app.clock.set(t('2026-02-01 08:00:00'));
    await deliverCustomerEmails(late.app.ctx);
    expect(late.smtp.received).toHaveLength(1);
    expect(late.smtp.received[0]?.mail.subject).toBe('Your card for Acme Shop has expired');
    expect(late.smtp.received[0]?.mail.text).toContain('expired at the end of 01/2026.');
  });

  it('the card-expiring link stops working once a card that reaches the renewal is on file', async () => {
    const shop = await emailShop();
    const sub = await subscriber(shop, { month: '01', year: '2026' });
    shop.app.clock.set(t('2026-02-08 09:00:00'));
    await runRenewal(shop.app.ctx);
    const token = /\/card\/([\w-]+)/.exec(shop.smtp.received[0]?.mail.text ?? '')?.[1] ?? '';
    await updateCard(shop.app.ctx, shop.merchantId, {
      subscriptionId: sub.subscriptionId,
      cardInfo: JSON.stringify({ cardNumber: '5555555555554444', month: '12', year: '2030', cvv: '123' }),
    });
    await expect(getCardPage(shop.app.ctx, token)).rejects.toMatchObject({ code: '1007' });
  });

  it('a card still valid at the next renewal gets no warning', async () => {
    const shop = await emailShop();
    await subscriber(shop, { month: '02', year: '2026' });
    shop.app.clock.set(t('2026-02-10 09:00:00'));
    await runRenewal(shop.app.ctx);
    expect(await emailRows(shop.app)).toEqual([]);
  });

  it('emails go to the address set with subscription/update; a bad address is 1001 and changes nothing', async () => {
    const shop = await emailShop();
    const sub = await subscriber(shop, { card: DECLINING });
    const ctx = shop.app.ctx;
    const bad = updateSubscription(ctx, shop.merchantId, {
      subscriptionId: sub.subscriptionId,
      email: 'not an address',
    });
    await expect(bad).rejects.toMatchObject({ code: '1001' });
    const d = await updateSubscription(ctx, shop.merchantId, {
      subscriptionId: sub.subscriptionId,
      email: 'grace@example.com',
    });
    expect(d.email).toBe('grace@example.com');
    shop.app.clock.set(t('2026-02-15 09:00:00'));
    await runRenewal(ctx);
    expectWellFormed(shop.smtp.received[0], 'grace@example.com');
  });
});
