import { afterEach, describe, expect, it } from 'vitest';
import { createCoupon } from '../../src/services/coupons.js';
import { createPortalSession } from '../../src/services/portal/index.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { takeCoupon } from '../../src/services/take-coupon.js';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { getPage, portalShop, visibleText, type PortalShop } from '../helpers/portal.js';
import { subscribe } from '../helpers/subscriptions.js';

/** The coupon in the customer portal (SPEC §18, §19 "Where it shows"), on the run's engine. */
let app: TestApp;
let shop: PortalShop;
afterEach(async () => {
  await shop?.close();
  await app?.close();
});

/** The portal page of `userId`, as the subscriber reads it. */
async function portalText(userId: string): Promise<string> {
  const link = await createPortalSession(app.ctx, shop.merchantId, { userId });
  return visibleText((await getPage(shop.server, new URL(link.url).pathname)).body);
}

describe('coupons in the customer portal', () => {
  it('shows the coupon in force with what it takes off and the payments it still covers, and the next payment net of it', async () => {
    app = await testApp();
    shop = await portalShop(app);
    await createCoupon(app.ctx, shop.merchantId, {
      code: 'WELCOME',
      percentOff: '50',
      duration: 'REPEATING',
      cycles: 3,
    });
    await subscribe(app.ctx, shop.merchantId, shop.planId, { userId: 'user-2', couponCode: 'WELCOME' });
    const text = await portalText('user-2');
    // The first charge spent one of its three cycles; the next payment is the second.
    expect(text).toContain('Coupon WELCOME: 50% off, 2 more payments');
    expect(text).toContain('Next payment 15.00 USD on 2026-02-15 09:00:00 Discount (WELCOME): -15.00 USD');
  });

  it('shows the discount of each discounted charge in the billing history, and none on a charge at full price', async () => {
    app = await testApp();
    shop = await portalShop(app);
    await createCoupon(app.ctx, shop.merchantId, { code: 'FIRST', amountOff: '10.00', duration: 'ONCE' });
    await subscribe(app.ctx, shop.merchantId, shop.planId, { userId: 'user-2', couponCode: 'FIRST' });
    app.clock.advance(31 * 86_400_000);
    await runRenewal(app.ctx);
    const text = await portalText('user-2');
    expect(text).toMatch(/2026-01-15 09:00:00 INITIAL 20\.00 USD Discount \(FIRST\) -10\.00 USD SUCCESS/);
    expect(text).toMatch(/2026-02-15 09:00:00 RENEW 30\.00 USD SUCCESS/);
    // Its one payment is used: nothing more to show for it, and the next payment is at full price.
    expect(text).not.toContain('Coupon FIRST');
    expect(text).toContain('Next payment 30.00 USD on 2026-03-15 09:00:00 Card');
  });

  it('shows a coupon taken later from the next payment on, for every payment when it lasts forever', async () => {
    app = await testApp();
    shop = await portalShop(app);
    await createCoupon(app.ctx, shop.merchantId, { code: 'LOYAL', amountOff: '5.00', duration: 'FOREVER' });
    await takeCoupon(app.ctx, shop.merchantId, { subscriptionId: shop.subscriptionId, couponCode: 'LOYAL' });
    const text = await portalText('user-1');
    expect(text).toContain('Coupon LOYAL: 5.00 USD off every payment');
    expect(text).toContain('Next payment 25.00 USD on 2026-02-15 09:00:00 Discount (LOYAL): -5.00 USD');
    expect(text).toMatch(/2026-01-15 09:00:00 INITIAL 30\.00 USD SUCCESS/);
  });
});
