import { describe, expect, it } from 'vitest';
import { FixedClock } from '../../src/domain/clock.js';
import { parseTime } from '../../src/domain/time.js';
import { deliverCustomerEmails } from '../../src/services/documents/email-delivery.js';
import type { SmtpTimeouts } from '../../src/notify/email/smtp.js';
import { RETRY_DELAYS_MS } from '../../src/notify/schedule.js';
import { updateMerchant } from '../../src/services/merchants.js';
import { pageEmails, resendEmail } from '../../src/services/emails.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { closeShopsAfterEach, type EmailShop, emailRows, emailShop, subscriber } from '../helpers/email-shop.js';

/**
 * Delivering the customer email outbox (SPEC §17) against a real SMTP server on loopback that
 * refuses, drops and hangs: retried on the schedule by the injectable clock, DEAD after the last
 * attempt, resendable; and nothing written where nothing may be sent.
 */
closeShopsAfterEach();
const t = (s: string): number => parseTime(s, 'UTC');
/** The hanging server's cases end on these; nothing here asserts how fast anything is. */
const TIMEOUTS: SmtpTimeouts = { connectMs: 5_000, idleMs: 1_500, totalMs: 20_000 };
const DECLINING = '4000000000000341';

/** A shop with one renewal-failed email written (not yet sent): the run delivers nothing itself. */
async function oneEmailWaiting(mode: EmailShop['smtp']['mode']): Promise<EmailShop> {
  const shop = await emailShop({ mode });
  await subscriber(shop, { card: DECLINING });
  shop.app.clock.set(t('2026-02-15 09:00:00'));
  await runRenewal(shop.app.ctx, { deliverCallbacks: false });
  expect((await emailRows(shop.app)).map((r) => r.status)).toEqual(['PENDING']);
  return shop;
}

const deliver = (shop: EmailShop) => deliverCustomerEmails(shop.app.ctx, { timeouts: TIMEOUTS });

describe('customer email delivery', () => {
  it('a refused message is retried after 1 min, 5 min, 30 min, 2 h, 6 h and 24 h, then DEAD; resend sends it', async () => {
    const shop = await oneEmailWaiting('refuse-message');
    let now = shop.app.clock.now();
    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      expect(await deliver(shop)).toEqual({ sent: 0, failed: 1, dead: 0 });
      const [row] = await emailRows(shop.app);
      expect(row).toMatchObject({ status: 'PENDING', attempts: i + 1, next_attempt_at: now + delay });
      // Not due a moment before its time.
      shop.app.clock.set(now + delay - 1);
      expect(await deliver(shop)).toEqual({ sent: 0, failed: 0, dead: 0 });
      now += delay;
      shop.app.clock.set(now);
    }
    expect(await deliver(shop)).toEqual({ sent: 0, failed: 0, dead: 1 });
    const [dead] = (await pageEmails(shop.app.ctx, { status: 'DEAD' }, { page: 1, limit: 10 })).items;
    expect(dead).toMatchObject({
      kind: 'renewal-failed',
      attempts: 7,
      lastError: expect.stringMatching(/451.*gave up after 7 attempts/),
    });
    expect(shop.smtp.attempts).toBe(7);

    shop.smtp.mode = 'accept';
    expect(await resendEmail(shop.app.ctx, dead?.emailId ?? '')).toMatchObject({ status: 'PENDING', attempts: 0 });
    expect(await deliver(shop)).toEqual({ sent: 1, failed: 0, dead: 0 });
    expect(shop.smtp.received).toHaveLength(1);
  });

  it('a connection dropped before the reply leaves the email PENDING; the next attempt sends it once', async () => {
    const shop = await oneEmailWaiting('drop');
    expect(await deliver(shop)).toEqual({ sent: 0, failed: 1, dead: 0 });
    shop.smtp.mode = 'accept';
    shop.app.clock.set(shop.app.clock.now() + 60_000);
    expect(await deliver(shop)).toEqual({ sent: 1, failed: 0, dead: 0 });
    expect(await deliver(shop)).toEqual({ sent: 0, failed: 0, dead: 0 });
    expect(shop.smtp.received).toHaveLength(1);
    expect((await emailRows(shop.app))[0]).toMatchObject({ status: 'SENT', attempts: 2 });
  });

  it('a deliverer whose test clock runs a month ahead does not send an email another deliverer is still sending', async () => {
    const shop = await oneEmailWaiting('hang');
    const serving = deliver(shop);
    for (let i = 0; i < 400 && shop.smtp.attempts === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(shop.smtp.attempts).toBe(1);

    // renew --at a month ahead: the same database and real time, its business clock later.
    const clock = new FixedClock(shop.app.clock.now() + 30 * 86_400_000, shop.app.clock);
    const later = { ...shop.app.ctx, clock };
    expect(await deliverCustomerEmails(later, { now: clock.now(), timeouts: TIMEOUTS })).toEqual({
      sent: 0,
      failed: 0,
      dead: 0,
    });
    expect(shop.smtp.attempts).toBe(1);
    expect(await serving).toEqual({ sent: 0, failed: 1, dead: 0 });
  });

  it('a server that never answers the message times out and leaves the email PENDING', async () => {
    const shop = await oneEmailWaiting('hang');
    expect(await deliver(shop)).toEqual({ sent: 0, failed: 1, dead: 0 });
    const [listed] = (await pageEmails(shop.app.ctx, {}, { page: 1, limit: 10 })).items;
    expect(listed).toMatchObject({ status: 'PENDING', attempts: 1, nextAttemptTime: '2026-02-15 09:01:00' });
  });

  it('resending an email still PENDING is 1008, an unknown one 1007', async () => {
    const shop = await oneEmailWaiting('accept');
    const [row] = await emailRows(shop.app);
    await expect(resendEmail(shop.app.ctx, row?.id ?? '')).rejects.toMatchObject({ code: '1008' });
    await expect(resendEmail(shop.app.ctx, 'eml_nope')).rejects.toMatchObject({ code: '1007' });
  });

  it('an email whose merchant turned customer emails off before delivery is DEAD, not sent', async () => {
    const shop = await oneEmailWaiting('accept');
    await updateMerchant(shop.app.ctx, shop.merchantId, { customerEmails: 'off' });
    expect(await deliver(shop)).toEqual({ sent: 0, failed: 0, dead: 1 });
    expect(shop.smtp.received).toHaveLength(0);
  });
});

describe('no email is written', () => {
  const failOnce = async (shop: EmailShop): Promise<void> => {
    shop.app.clock.set(t('2026-02-15 09:00:00'));
    expect(await runRenewal(shop.app.ctx)).toMatchObject({ retriesScheduled: 1, emailsSent: 0 });
    expect(await emailRows(shop.app)).toEqual([]);
    expect(shop.smtp.attempts).toBe(0);
  };

  it('without PAYGATE_SMTP_URL', async () => {
    const shop = await emailShop({ smtp: false });
    await subscriber(shop, { card: DECLINING });
    await failOnce(shop);
  });

  it('with the merchant’s customer emails off', async () => {
    const shop = await emailShop({ merchant: { customerEmails: 'off' } });
    await subscriber(shop, { card: DECLINING });
    await failOnce(shop);
  });

  it('without the merchant’s emailFrom', async () => {
    const shop = await emailShop({ merchant: { emailFrom: '' } });
    await subscriber(shop, { card: DECLINING });
    await failOnce(shop);
  });

  it('without an address', async () => {
    const shop = await emailShop();
    await subscriber(shop, { card: DECLINING, email: null });
    await failOnce(shop);
  });
});
