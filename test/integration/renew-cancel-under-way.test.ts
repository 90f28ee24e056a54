import { describe, expect, it } from 'vitest';
import { parseTime } from '../../src/domain/time.js';
import { deliverCustomerEmails } from '../../src/services/documents/email-delivery.js';
import { chargeRecord, recordOutcome, runRenewal } from '../../src/services/renew/index.js';
import { claimNextBatch } from '../../src/services/renew/claim.js';
import {
  cancelSubscription,
  pauseSubscription,
  resumeSubscription,
  subscriptionDetail,
} from '../../src/services/subscriptions/index.js';
import type { ClaimedRecord } from '../../src/store/store.js';
import { CLOSED_NOTIFY_URL } from '../helpers/ctx.js';
import { closeShopsAfterEach, type EmailShop, emailShop, SUBSCRIBER } from '../helpers/email-shop.js';
import { rowsOf } from '../helpers/rows.js';
import { records, subRow, subscribe } from '../helpers/subscriptions.js';

/**
 * A renewal whose charge was under way when the subscription was cancelled or paused (SPEC §6:
 * it completes and its result is recorded), on a fixed clock, on the run's engine: a success moves
 * a cancelled subscription's endTime to the end of the period it paid for; a claim taken over after
 * its run died asks the channel about the record's key only and never sends a new charge; the
 * cancel email does not promise "no more charges" while one is under way.
 */
closeShopsAfterEach();
const t = (s: string): number => parseTime(s, 'UTC');

/** A monthly 9.99 subscriber from 2026-01-15 09:00 (TEST_NOW), its first receipt sent and forgotten. */
async function subscriber(shop: EmailShop) {
  const sub = await subscribe(shop.app.ctx, shop.merchantId, shop.planId, {
    notifyUrl: CLOSED_NOTIFY_URL,
    billingAddress: { firstName: 'Ada', lastName: 'Lovelace', email: SUBSCRIBER },
  });
  await deliverCustomerEmails(shop.app.ctx);
  shop.smtp.received.length = 0;
  return sub;
}

/** `renew` at `at` that claims the due renewal and is killed before recording anything. */
async function claimOnly(shop: EmailShop, at: string): Promise<ClaimedRecord> {
  shop.app.clock.set(t(at));
  const now = shop.app.clock.now();
  const batch = await claimNextBatch(shop.app.ctx, { cutoff: now, limit: 10, cursor: null }, 'killed-run', now);
  expect(batch.claimed).toHaveLength(1);
  return batch.claimed[0] as ClaimedRecord;
}

/** The rest of a run that is still alive: the charge, then its outcome recorded. */
async function chargeAndRecord(shop: EmailShop, rec: ClaimedRecord): Promise<string> {
  const { ctx, clock } = shop.app;
  const out = await chargeRecord(ctx, rec, clock.now());
  if ('waiting' in out) throw new Error('the sandbox answers at once');
  return ctx.store.transaction((tx) => recordOutcome(ctx, tx, rec, out, clock.now()));
}

/** Renewal charges in the sandbox ledger (not customer-present), as [outcome, closing entry?]. */
async function renewalLedger(shop: EmailShop): Promise<Array<[string, boolean]>> {
  const rows = await rowsOf(shop.app.ctx).all<{ outcome: string; card_last4: string | null }>(
    "SELECT outcome, card_last4 FROM sandbox_charges WHERE kind = 'charge' AND NOT customer_present ORDER BY created_at, id",
  );
  return rows.map((r) => [r.outcome, r.card_last4 === null]);
}

async function receipts(shop: EmailShop): Promise<number> {
  const r = await rowsOf(shop.app.ctx).get<{ n: number }>(
    "SELECT count(*) AS n FROM customer_emails WHERE kind = 'receipt'",
  );
  return Number(r?.n);
}

async function invoices(shop: EmailShop): Promise<number> {
  const r = await rowsOf(shop.app.ctx).get<{ n: number }>('SELECT count(*) AS n FROM invoices');
  return Number(r?.n);
}

async function callbacks(shop: EmailShop, subscriptionId: string): Promise<Array<Record<string, string>>> {
  const rows = await rowsOf(shop.app.ctx).all<{ payload: string }>(
    'SELECT payload FROM outbox_events WHERE subscription_id = ? ORDER BY seq',
    subscriptionId,
  );
  return rows.map((r) => JSON.parse(r.payload) as Record<string, string>);
}

async function cancelAt(shop: EmailShop, subscriptionId: string, at: string): Promise<void> {
  shop.app.clock.set(t(at));
  await cancelSubscription(shop.app.ctx, shop.merchantId, subscriptionId);
}

async function detail(shop: EmailShop, subscriptionId: string) {
  return subscriptionDetail(shop.app.ctx, shop.merchantId, subscriptionId);
}

describe('a charge under way at the cancel that succeeds', () => {
  it('is recorded and moves endTime to the end of the period it paid for; the callback and the receipt say so', async () => {
    const shop = await emailShop();
    const sub = await subscriber(shop);
    const rec = await claimOnly(shop, '2026-02-15 09:00:00');
    await cancelAt(shop, sub.subscriptionId, '2026-02-15 09:02:00');
    expect(await detail(shop, sub.subscriptionId)).toMatchObject({
      status: 'CANCELLED',
      endTime: '2026-02-15 09:02:00',
    });
    // The run that claimed it is alive: its charge goes through at 09:05.
    shop.app.clock.set(t('2026-02-15 09:05:00'));
    expect(await chargeAndRecord(shop, rec)).toBe('succeeded');
    expect(await detail(shop, sub.subscriptionId)).toMatchObject({
      status: 'CANCELLED',
      cancelTime: '2026-02-15 09:02:00',
      endTime: '2026-03-15 09:00:00',
      billingCount: 2,
    });
    expect(await subRow(shop.app.ctx, sub.subscriptionId)).toMatchObject({
      paid_through: t('2026-03-15 09:00:00'),
      end_time: t('2026-03-15 09:00:00'),
    });
    // Nothing is scheduled after it.
    expect((await records(shop.app.ctx, sub.subscriptionId)).map((r) => r.status)).toEqual(['SUCCESS', 'SUCCESS']);
    const renewed = (await callbacks(shop, sub.subscriptionId)).find((c) => c.eventType === 'RENEW_SUCCEEDED');
    expect(renewed).toMatchObject({
      subscriptionStatus: 'CANCELLED',
      recordStatus: 'SUCCESS',
      endTime: '2026-03-15 09:00:00',
      paidThrough: '2026-03-15 09:00:00',
    });
    expect(renewed?.nextBillingTime).toBeUndefined();
    await deliverCustomerEmails(shop.app.ctx);
    const receipt = shop.smtp.received.find((m) => m.mail.subject?.startsWith('Your receipt'));
    expect(receipt?.mail.text).toContain(
      'already under way when your subscription was cancelled and has gone through, so your subscription runs until 2026-03-15 09:00:00',
    );
  });
});

describe('a claim taken over after its run died, on a subscription cancelled since', () => {
  it('no charge was made: the record ends CANCELLED, the key is closed, nothing is charged, invoiced or receipted', async () => {
    const shop = await emailShop();
    const sub = await subscriber(shop);
    const invoicesBefore = await invoices(shop);
    const rec = await claimOnly(shop, '2026-02-15 09:00:00');
    await cancelAt(shop, sub.subscriptionId, '2026-02-15 09:02:00');
    // Past the dead run's lease (10 minutes): the next run takes the record over.
    shop.app.clock.set(t('2026-02-15 09:11:00'));
    const run = await runRenewal(shop.app.ctx, { deliverCallbacks: false });
    expect(run).toMatchObject({ due: 1, succeeded: 0, failed: 0 });
    const [, renewal] = await records(shop.app.ctx, sub.subscriptionId);
    expect(renewal).toMatchObject({ id: rec.id, status: 'CANCELLED', actual_time: t('2026-02-15 09:11:00') });
    const txn = await shop.app.ctx.store.getTransaction(rec.transactionId as string);
    expect(txn?.status).toBe(300020);
    expect(await detail(shop, sub.subscriptionId)).toMatchObject({
      status: 'CANCELLED',
      endTime: '2026-02-15 09:02:00',
      billingCount: 1,
      totalPaid: 9.99,
    });
    // The key is closed by a declined entry with no card: nothing was charged.
    expect(await renewalLedger(shop)).toEqual([['declined', true]]);
    expect(await invoices(shop)).toBe(invoicesBefore);
    expect(await receipts(shop)).toBe(1);
    // No SUBSCRIPTION callback: like the records the cancel itself ended (the first charge's PAYMENT one only).
    expect((await callbacks(shop, sub.subscriptionId)).map((c) => c.notifyType)).toEqual(['PAYMENT']);
    // The card goes now that nothing is under way.
    expect((await subRow(shop.app.ctx, sub.subscriptionId)).card_id).toBeNull();
    // The dead run waking up late with the key charges nothing and records nothing.
    expect(await chargeAndRecord(shop, rec)).toBe('already_recorded');
    expect(await renewalLedger(shop)).toEqual([['declined', true]]);
    expect(await detail(shop, sub.subscriptionId)).toMatchObject({ billingCount: 1, endTime: '2026-02-15 09:02:00' });
  });

  it('the dead run had charged: that charge is recorded (no second one) and endTime moves to the period it paid for', async () => {
    const shop = await emailShop();
    const sub = await subscriber(shop);
    const rec = await claimOnly(shop, '2026-02-15 09:00:00');
    // It reached the channel, then died before recording.
    expect(await chargeRecord(shop.app.ctx, rec, shop.app.clock.now())).toMatchObject({ approved: true });
    await cancelAt(shop, sub.subscriptionId, '2026-02-15 09:02:00');
    shop.app.clock.set(t('2026-02-15 09:11:00'));
    expect(await runRenewal(shop.app.ctx, { deliverCallbacks: false })).toMatchObject({ due: 1, succeeded: 1 });
    expect(await renewalLedger(shop)).toEqual([['approved', false]]);
    expect(await detail(shop, sub.subscriptionId)).toMatchObject({
      status: 'CANCELLED',
      endTime: '2026-03-15 09:00:00',
      billingCount: 2,
      totalPaid: 19.98,
    });
    expect((await callbacks(shop, sub.subscriptionId)).at(-1)).toMatchObject({
      eventType: 'RENEW_SUCCEEDED',
      subscriptionStatus: 'CANCELLED',
      endTime: '2026-03-15 09:00:00',
    });
    expect(await receipts(shop)).toBe(2);
  });
});

describe('a charge under way at a pause', () => {
  it('taken over with no charge made: CANCELLED with no charge; a resume bills from then', async () => {
    const shop = await emailShop();
    const sub = await subscriber(shop);
    await claimOnly(shop, '2026-02-15 09:00:00');
    shop.app.clock.set(t('2026-02-15 09:02:00'));
    await pauseSubscription(shop.app.ctx, shop.merchantId, sub.subscriptionId);
    shop.app.clock.set(t('2026-02-15 09:11:00'));
    expect(await runRenewal(shop.app.ctx, { deliverCallbacks: false })).toMatchObject({ due: 1, succeeded: 0 });
    expect((await records(shop.app.ctx, sub.subscriptionId)).map((r) => r.status)).toEqual(['SUCCESS', 'CANCELLED']);
    expect(await renewalLedger(shop)).toEqual([['declined', true]]);
    expect(await detail(shop, sub.subscriptionId)).toMatchObject({ status: 'PAUSED', billingCount: 1 });
    shop.app.clock.set(t('2026-02-20 09:00:00'));
    await resumeSubscription(shop.app.ctx, shop.merchantId, sub.subscriptionId);
    expect(await detail(shop, sub.subscriptionId)).toMatchObject({
      status: 'ACTIVE',
      nextBillingTime: '2026-02-20 09:00:00',
    });
  });

  it('one that succeeds pays through its period; the receipt and the callback say so', async () => {
    const shop = await emailShop();
    const sub = await subscriber(shop);
    const rec = await claimOnly(shop, '2026-02-15 09:00:00');
    shop.app.clock.set(t('2026-02-15 09:02:00'));
    await pauseSubscription(shop.app.ctx, shop.merchantId, sub.subscriptionId);
    expect(await chargeAndRecord(shop, rec)).toBe('succeeded');
    expect(await subRow(shop.app.ctx, sub.subscriptionId)).toMatchObject({
      status: 'PAUSED',
      paid_through: t('2026-03-15 09:00:00'),
      end_time: null,
    });
    expect((await callbacks(shop, sub.subscriptionId)).at(-1)).toMatchObject({
      eventType: 'RENEW_SUCCEEDED',
      subscriptionStatus: 'PAUSED',
      paidThrough: '2026-03-15 09:00:00',
    });
    await deliverCustomerEmails(shop.app.ctx);
    expect(shop.smtp.received.at(-1)?.mail.text).toContain(
      'already under way when your subscription was paused and has gone through: it pays for your subscription until 2026-03-15 09:00:00',
    );
  });
});

describe('the cancel email', () => {
  it('with a charge under way it does not promise "no more charges"', async () => {
    const shop = await emailShop();
    const sub = await subscriber(shop);
    await claimOnly(shop, '2026-02-15 09:00:00');
    await cancelAt(shop, sub.subscriptionId, '2026-02-15 09:02:00');
    await deliverCustomerEmails(shop.app.ctx);
    const ended = shop.smtp.received.find((m) => m.mail.subject === 'Your subscription to Pro has been cancelled');
    expect(ended?.mail.text).not.toContain('you will not be charged again');
    expect(ended?.mail.text).toContain(
      'A payment for it was already under way when it was cancelled and may still go through',
    );
    expect(ended?.mail.text).toContain('if not, it ends on 2026-02-15 09:02:00');
  });

  it('with nothing under way it says the subscription ends at the paid period with no more charges', async () => {
    const shop = await emailShop();
    const sub = await subscriber(shop);
    await cancelAt(shop, sub.subscriptionId, '2026-01-20 12:00:00');
    await deliverCustomerEmails(shop.app.ctx);
    expect(shop.smtp.received.at(-1)?.mail.text).toContain(
      'It ends on 2026-02-15 09:00:00; you will not be charged again.',
    );
  });
});
