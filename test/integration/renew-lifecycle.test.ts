import { rowsOf } from '../helpers/rows.js';
import { afterEach, describe, expect, it } from 'vitest';
import { testApp, testMerchant, type TestApp } from '../helpers/ctx.js';
import { merchantWithPlan, planCount, records, subRow, subscribe } from '../helpers/subscriptions.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { parseTime } from '../../src/domain/time.js';
import { updateMerchant } from '../../src/services/merchants.js';
import {
  cancelSubscription,
  listBillingRecords,
  listUserSubscriptions,
  pauseSubscription,
  resumeSubscription,
  subscriptionDetail,
} from '../../src/services/subscriptions/index.js';
import { claimNextBatch } from '../../src/services/renew/claim.js';
import { chargeRecord } from '../../src/services/renew/charge.js';
import { recordOutcome } from '../../src/services/renew/record.js';
import { PaygateError } from '../../src/domain/errors.js';

let app: TestApp;
afterEach(async () => app?.close());
const t = (s: string): number => parseTime(s, 'UTC');
const code = async (fn: () => unknown): Promise<string> => {
  try {
    await fn();
  } catch (e) {
    return e instanceof PaygateError ? e.code : 'other';
  }
  return 'none';
};

describe('trial', () => {
  it('first renewal falls at start + trialDays, after a zero card check', async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { trialDays: 14 });
    const sub = await subscribe(ctx, merchantId, planId);
    const d = await subscriptionDetail(ctx, merchantId, sub.subscriptionId);
    expect(d).toMatchObject({ status: 'ACTIVE', nextBillingTime: '2026-01-24 12:00:00', totalPaid: 0 });
    clock.set(t('2026-01-24 11:59:59'));
    expect((await runRenewal(ctx)).due).toBe(0);
    clock.set(t('2026-01-24 12:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ due: 1, succeeded: 1 });
    const recs = await records(ctx, sub.subscriptionId);
    expect(recs.map((r) => [r.billing_type, r.status, r.amount, r.cycle_index])).toEqual([
      ['INITIAL', 'SUCCESS', 0, 0],
      ['RENEW', 'SUCCESS', 999, 0],
      ['RENEW', 'PENDING', 999, 1],
    ]);
    expect(await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).toMatchObject({
      nextBillingTime: '2026-02-24 12:00:00',
      totalPaid: 9.99,
      billingCount: 2,
    });
  });

  it('cancel during the trial ends at the trial end', async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { trialDays: 7 });
    const sub = await subscribe(ctx, merchantId, planId);
    clock.set(t('2026-01-12 08:00:00'));
    expect(
      await cancelSubscription(ctx, merchantId, { subscriptionId: sub.subscriptionId, sign: 'x', merchantId }),
    ).toBe(true);
    const d = await subscriptionDetail(ctx, merchantId, sub.subscriptionId);
    expect(d).toMatchObject({ status: 'CANCELLED', cancelTime: '2026-01-12 08:00:00', endTime: '2026-01-17 12:00:00' });
    expect(d.nextBillingTime).toBeUndefined();
    expect(await planCount(ctx, planId)).toBe(0);
    expect((await subRow(ctx, sub.subscriptionId)).card_id).toBeNull();
  });
});

describe('pause and resume', () => {
  it('pause across a billing date, then resume: charged at resume, anchor moves to now', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const sub = await subscribe(ctx, merchantId, planId);
    clock.set(t('2026-02-01 00:00:00'));
    expect(await pauseSubscription(ctx, merchantId, sub.subscriptionId)).toBe(true);
    expect((await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).nextBillingTime).toBeUndefined();
    expect(await code(() => pauseSubscription(ctx, merchantId, sub.subscriptionId))).toBe('1008');
    clock.set(t('2026-02-20 00:00:00'));
    expect((await runRenewal(ctx)).due).toBe(0);
    clock.set(t('2026-03-03 10:00:00'));
    expect(await resumeSubscription(ctx, merchantId, sub.subscriptionId)).toBe(true);
    expect(await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).toMatchObject({
      status: 'ACTIVE',
      nextBillingTime: '2026-03-03 10:00:00',
    });
    expect(await runRenewal(ctx)).toMatchObject({ due: 1, succeeded: 1 });
    expect((await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).nextBillingTime).toBe('2026-04-03 10:00:00');
    const recs = await records(ctx, sub.subscriptionId);
    expect(recs.map((r) => [r.billing_type, r.status])).toEqual([
      ['INITIAL', 'SUCCESS'],
      ['RENEW', 'CANCELLED'],
      ['RENEW', 'SUCCESS'],
      ['RENEW', 'PENDING'],
    ]);
    expect(await planCount(ctx, planId)).toBe(1);
  });

  it('resume before the old billing date keeps it', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const sub = await subscribe(ctx, merchantId, planId);
    clock.set(t('2026-02-01 00:00:00'));
    await pauseSubscription(ctx, merchantId, sub.subscriptionId);
    clock.set(t('2026-02-10 00:00:00'));
    await resumeSubscription(ctx, merchantId, sub.subscriptionId);
    expect((await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).nextBillingTime).toBe('2026-02-15 09:00:00');
    expect(await code(() => resumeSubscription(ctx, merchantId, sub.subscriptionId))).toBe('1008');
  });

  it('a pause during a RETRY cancels the retry; resume starts afresh with a RENEW', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000000036' });
    clock.set(t('2026-02-15 09:00:00'));
    await runRenewal(ctx);
    await pauseSubscription(ctx, merchantId, sub.subscriptionId);
    clock.set(t('2026-02-15 10:00:00'));
    await resumeSubscription(ctx, merchantId, sub.subscriptionId);
    const pending = (await records(ctx, sub.subscriptionId)).filter((r) => r.status === 'PENDING');
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({
      billing_type: 'RENEW',
      retry_count: 0,
      scheduled_time: t('2026-02-16 09:00:00'),
    });
  });

  it('a charge under way when paused completes, is recorded, and schedules nothing', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const sub = await subscribe(ctx, merchantId, planId);
    clock.set(t('2026-02-15 09:00:00'));
    const due = (await records(ctx, sub.subscriptionId)).find((r) => r.status === 'PENDING');
    const batch = await claimNextBatch(ctx, { cutoff: clock.now(), limit: 10, cursor: null }, 'test', clock.now());
    const [claimed] = batch.claimed;
    expect(claimed?.id).toBe(due?.id);
    if (!claimed) return;
    await pauseSubscription(ctx, merchantId, sub.subscriptionId);
    const outcome = await chargeRecord(ctx, claimed, clock.now());
    expect(
      await ctx.store.transaction((tx) =>
        recordOutcome(ctx, tx, claimed, outcome as Exclude<typeof outcome, { waiting: true }>, clock.now()),
      ),
    ).toBe('succeeded');
    expect((await records(ctx, sub.subscriptionId)).map((r) => r.status)).toEqual(['SUCCESS', 'SUCCESS']);
    expect(await subRow(ctx, sub.subscriptionId)).toMatchObject({ status: 'PAUSED', billing_count: 2 });
    clock.set(t('2026-02-20 09:00:00'));
    await resumeSubscription(ctx, merchantId, sub.subscriptionId);
    expect((await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).nextBillingTime).toBe('2026-03-15 09:00:00');
  });
});

describe('catch-up', () => {
  it('five missed months are charged once; the next RENEW is the first anchor date after the run', async () => {
    app = await testApp({ now: t('2026-01-31 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const sub = await subscribe(ctx, merchantId, planId);
    clock.set(t('2026-07-15 00:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ due: 1, succeeded: 1 });
    expect((await runRenewal(ctx)).due).toBe(0);
    const recs = await records(ctx, sub.subscriptionId);
    expect(recs.map((r) => [r.billing_type, r.status, r.cycle_index])).toEqual([
      ['INITIAL', 'SUCCESS', 0],
      ['RENEW', 'SUCCESS', 1],
      ['RENEW', 'PENDING', 6],
    ]);
    expect(await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).toMatchObject({
      nextBillingTime: '2026-07-31 09:00:00',
      billingCount: 2,
    });
  });
});

describe('cancel', () => {
  it('ends at the paid period, refuses repeats, and 1007 for foreign ids', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const other = await testMerchant(ctx);
    const sub = await subscribe(ctx, merchantId, planId);
    expect(await code(() => cancelSubscription(ctx, other.merchantId, sub.subscriptionId))).toBe('1007');
    expect(await code(() => subscriptionDetail(ctx, other.merchantId, sub.subscriptionId))).toBe('1007');
    expect(await code(() => cancelSubscription(ctx, merchantId, { subscriptionId: '' }))).toBe('1001');
    clock.set(t('2026-01-20 00:00:00'));
    await cancelSubscription(ctx, merchantId, sub.subscriptionId);
    expect(await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).toMatchObject({
      status: 'CANCELLED',
      endTime: '2026-02-15 09:00:00',
      cancelTime: '2026-01-20 00:00:00',
    });
    for (const fn of [cancelSubscription, pauseSubscription, resumeSubscription]) {
      expect(await code(() => fn(ctx, merchantId, sub.subscriptionId))).toBe('1008');
    }
    clock.set(t('2026-03-01 00:00:00'));
    expect((await runRenewal(ctx)).due).toBe(0);
  });

  it('cancelling an INCOMPLETE subscription closes its 3DS page', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000003220' });
    expect(sub.status).toBe(100040);
    expect((await subRow(ctx, sub.subscriptionId)).status).toBe('INCOMPLETE');
    expect(await planCount(ctx, planId)).toBe(1);
    await cancelSubscription(ctx, merchantId, sub.subscriptionId);
    const txn = await rowsOf(ctx).get(
      'SELECT status, page_token FROM transactions WHERE id = ?',
      sub.transactionOrderId,
    );
    expect(txn).toEqual({ status: 300020, page_token: null });
    expect((await records(ctx, sub.subscriptionId)).map((r) => [r.billing_type, r.status])).toEqual([
      ['INITIAL', 'CANCELLED'],
    ]);
    expect(await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).toMatchObject({
      status: 'CANCELLED',
      endTime: '2026-01-15 09:00:00',
    });
    expect(await planCount(ctx, planId)).toBe(0);
  });
});

describe('merchant disabled', () => {
  it('records wait, PENDING, until the merchant is enabled', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    await subscribe(ctx, merchantId, planId);
    await updateMerchant(ctx, merchantId, { status: 'DISABLED' });
    clock.set(t('2026-02-16 00:00:00'));
    expect((await runRenewal(ctx)).due).toBe(0);
    await updateMerchant(ctx, merchantId, { status: 'ACTIVE' });
    expect(await runRenewal(ctx)).toMatchObject({ due: 1, succeeded: 1 });
  });
});

describe('queries', () => {
  it('user list and billing list with pagination', async () => {
    app = await testApp({ now: t('2026-01-01 00:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { cycleType: 'DAILY' });
    const a = await subscribe(ctx, merchantId, planId, { userId: 'u1' });
    clock.set(t('2026-01-01 00:00:01'));
    const b = await subscribe(ctx, merchantId, planId, { userId: 'u1' });
    await subscribe(ctx, merchantId, planId, { userId: 'u2' });
    await pauseSubscription(ctx, merchantId, b.subscriptionId);
    const list = await listUserSubscriptions(ctx, merchantId, { userId: 'u1', merchantId, sign: 'x' });
    expect(list.map((s) => s.subscriptionId)).toEqual([b.subscriptionId, a.subscriptionId]);
    expect(list[0]).not.toHaveProperty('nextBillingTime');
    expect(list[0]).not.toHaveProperty('totalPaid');
    expect(await listUserSubscriptions(ctx, merchantId, { userId: 'u1', status: 'PAUSED' })).toHaveLength(1);
    expect(await code(() => listUserSubscriptions(ctx, merchantId, { userId: 'u1', status: 'NOPE' }))).toBe('1001');
    for (let d = 2; d <= 13; d++) {
      clock.set(t(`2026-01-${String(d).padStart(2, '0')} 00:00:00`));
      await runRenewal(ctx);
    }
    const p1 = await listBillingRecords(ctx, merchantId, { subscriptionCode: a.subscriptionCode, pageSize: '5' });
    expect(p1).toMatchObject({ total: 14, pageNum: 1, pageSize: 5 });
    expect(p1.records).toHaveLength(5);
    expect(p1.records[0]).toMatchObject({ status: 'PENDING', billingType: 'RENEW' });
    expect(p1.records[0]).not.toHaveProperty('actualTime');
    const p3 = await listBillingRecords(ctx, merchantId, {
      subscriptionCode: a.subscriptionCode,
      pageSize: 5,
      pageNum: 3,
    });
    expect(p3.records.map((r) => r.billingType)).toEqual(['RENEW', 'RENEW', 'RENEW', 'INITIAL']);
    expect(
      (await listBillingRecords(ctx, merchantId, { subscriptionCode: a.subscriptionCode, status: 'SUCCESS' })).total,
    ).toBe(13);
    expect(
      await code(() => listBillingRecords(ctx, merchantId, { subscriptionCode: a.subscriptionCode, pageSize: 101 })),
    ).toBe('1001');
    expect(
      await code(() => listBillingRecords(ctx, merchantId, { subscriptionCode: a.subscriptionCode, pageNum: 0 })),
    ).toBe('1001');
    expect(
      await code(() => listBillingRecords(ctx, merchantId, { subscriptionCode: a.subscriptionCode, pageNum: '1.5' })),
    ).toBe('1001');
    expect(await code(() => listBillingRecords(ctx, merchantId, { subscriptionCode: 'SCNOPE' }))).toBe('1007');
    const d = await subscriptionDetail(ctx, merchantId, { subscriptionId: a.subscriptionId });
    expect(d).toMatchObject({
      billingCount: 13,
      failedCount: 0,
      totalPaid: 129.87,
      amount: 9.99,
      cycleType: 'DAILY',
      cycleLength: 1,
    });
  });
});
