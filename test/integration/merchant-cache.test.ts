import { afterEach, describe, expect, it } from 'vitest';
import { authenticateMerchant, rotateApiKey, updateMerchant } from '../../src/services/merchants.js';
import { testApp, testMerchant, type TestApp } from '../helpers/ctx.js';

/**
 * API authentication keeps a merchant's row in memory (services/merchant-cache.ts); a change this
 * process makes is seen by its next request at once, whatever the cache holds.
 */
let app: TestApp | undefined;
afterEach(async () => app?.close());

describe('the merchant row authentication keeps in memory', () => {
  it('a merchant this process disables is refused (1003) on its very next request', async () => {
    app = await testApp();
    const { ctx } = app;
    const m = await testMerchant(ctx);
    expect((await authenticateMerchant(ctx, m.merchantId, m.apiKey)).status).toBe('ACTIVE');
    await updateMerchant(ctx, m.merchantId, { status: 'DISABLED' });
    await expect(authenticateMerchant(ctx, m.merchantId, m.apiKey)).rejects.toMatchObject({ code: '1003' });
  });

  it('an API key this process rotates authenticates on its very next request', async () => {
    app = await testApp();
    const { ctx } = app;
    const m = await testMerchant(ctx);
    await authenticateMerchant(ctx, m.merchantId, m.apiKey);
    const { apiKey } = await rotateApiKey(ctx, m.merchantId);
    expect((await authenticateMerchant(ctx, m.merchantId, apiKey)).apiKey).toBe(apiKey);
    // The old key, cached under its own name, now reads as the previous one (24 hours' grace).
    expect((await authenticateMerchant(ctx, m.merchantId, m.apiKey)).prevApiKey).toBe(m.apiKey);
  });
});
