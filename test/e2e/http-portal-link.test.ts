import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, raw, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';

let shop: ServedShop;
let merchant: TestMerchant;

beforeAll(async () => {
  shop = await servedShop({
    merchants: [
      [2, 'Link Shop'],
      [1, 'V1 Shop'],
    ],
  });
  [merchant] = shop.merchants as [TestMerchant];
});
afterAll(() => shop?.stop());

describe('POST /portal/session and `paygate portal link` (SPEC §18)', () => {
  it('answers {url, expireTime} for a signed request, and the url opens the portal page', async () => {
    const r = await client(shop.url, merchant).post('/portal/session', {
      userId: 'user-7',
      returnUrl: 'https://shop.example/account',
    });
    expect(r.body.rtn_code).toBe('0000');
    const { url, expireTime } = r.body.data as { url: string; expireTime: string };
    expect(url).toMatch(new RegExp(`^${shop.url}/portal/[A-Za-z0-9_-]{43}$`));
    expect(expireTime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const page = await raw(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Your subscriptions with Link Shop');
    expect(page.text).toContain('href="https://shop.example/account"');
  });

  it('works for a v1 merchant too', async () => {
    const v1 = shop.merchants[1] as TestMerchant;
    const r = await client(shop.url, v1).post('/portal/session', { userId: 'user-1' });
    expect(r.body.rtn_code).toBe('0000');
  });

  it('names the field of a request without userId (1001)', async () => {
    const r = await client(shop.url, merchant).post('/portal/session', {});
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ rtn_code: '1001' });
    expect(r.body.rtn_msg).toContain('userId');
  });

  it('refuses an unsigned request (1002)', async () => {
    const r = await raw(`${shop.url}/portal/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ merchantId: merchant.merchantId, userId: 'user-1' }),
    });
    expect(r.status).toBe(401);
    expect(JSON.parse(r.text)).toMatchObject({ rtn_code: '1002' });
  });

  it('makes the same link from the CLI', () => {
    const r = shop.cli(['--json', 'portal', 'link', '--merchant', merchant.merchantId, '--user', 'user-7']);
    expect(r.status, r.stderr).toBe(0);
    const link = JSON.parse(r.stdout) as { url: string; expireTime: string };
    expect(link.url).toMatch(/\/portal\/[A-Za-z0-9_-]{43}$/);
  });

  it('sets the portal actions with `merchant update --portal-actions`, in their canonical order', () => {
    const set = shop.cli(['--json', 'merchant', 'update', merchant.merchantId, '--portal-actions', 'pause,cancel']);
    expect(set.status, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ portalActions: 'cancel,pause' });
  });

  it('refuses an unknown portal action in one line naming the choices', () => {
    const r = shop.cli(['merchant', 'update', merchant.merchantId, '--portal-actions', 'cancel,refund']);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(
      'error 1001: portalActions: unknown action "refund": choose from cancel, pause, resume, update-card, change-plan (or none)',
    );
  });
});
