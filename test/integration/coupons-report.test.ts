import { afterEach, describe, expect, it } from 'vitest';
import { createCoupon } from '../../src/services/coupons.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { revenueReport } from '../../src/services/report.js';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { merchantWithPlan, subscribe } from '../helpers/subscriptions.js';

let app: TestApp;
afterEach(() => app?.close());
const at = (month: number, day: number): number => Date.UTC(2026, month - 1, day, 9, 0, 1);

describe('the revenue report with coupons', () => {
  it('counts MRR net of the coupon in force at each month end, and full once the coupon is used up', async () => {
    app = await testApp({ now: at(1, 10) });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '10.00' });
    await createCoupon(ctx, merchantId, { code: 'TWO', percentOff: '25', duration: 'REPEATING', cycles: 2 });
    await subscribe(ctx, merchantId, planId, { userId: 'a', couponCode: 'TWO' });
    await subscribe(ctx, merchantId, planId, { userId: 'b' });
    for (const m of [2, 3]) {
      clock.set(at(m, 10));
      await runRenewal(ctx);
    }
    const r = await revenueReport(ctx, { merchantId, from: '2026-01', to: '2026-03' });
    // a: 7.50 for January's and February's periods (the two discounted charges), 10.00 from March 10.
    expect(r.months.map((m) => [m.month, m.active, m.mrr, m.charged])).toEqual([
      ['2026-01', 2, 1750, 1750],
      ['2026-02', 2, 1750, 1750],
      ['2026-03', 2, 2000, 2000],
    ]);
  });
});
