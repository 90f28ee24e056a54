import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, raw, type Answer, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';

/**
 * SPEC §3 on the hosted pages: a form field is the text its bytes spell. A lone surrogate is
 * refused like the API's 1001, bytes that are not UTF-8 are a 400 page, and neither is kept as
 * literal escapes or repaired to U+FFFD. Driven as a browser without JavaScript would.
 */
let shop: ServedShop;
let m: TestMerchant;
let n = 0;
const YEAR = String(new Date().getUTCFullYear() + 3);

beforeAll(async () => {
  shop = await servedShop({ merchants: [[2, 'Unicode Boutique']] });
  m = shop.merchants[0] as TestMerchant;
});
afterAll(() => shop?.stop());

async function checkout(): Promise<{ path: string; id: string; csrf: string }> {
  n++;
  const r = await client(shop.url, m).post(`/payment/${m.apiKey}/transaction`, {
    requestId: `pu-${n}`,
    relationId: `pu-${n}`,
    paymentType: 'CHECKOUT',
    payAmount: '7.00',
    currency: 'EUR',
  });
  expect(r.body.rtn_code, JSON.stringify(r.body)).toBe('0000');
  const path = new URL(r.body.data.url as string).pathname;
  const csrf = /name="csrf" value="([^"]+)"/.exec((await raw(shop.url + path)).text)?.[1] ?? '';
  return { path, id: r.body.data.transactionOrderId as string, csrf };
}

/** The form as sent, with the holder name spelled in raw escapes. */
function send(path: string, csrf: string, holderName: string): Promise<Answer> {
  const fields = new URLSearchParams({
    csrf,
    action: 'pay',
    cardNumber: '4242424242424242',
    month: '12',
    year: YEAR,
    cvv: '123',
  });
  return raw(shop.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `${fields}&holderName=${holderName}`,
  });
}

async function statusOf(id: string): Promise<number> {
  const row = await shop.rows.get<{ status: number | string }>('SELECT status FROM transactions WHERE id = ?', id);
  return Number(row?.status);
}

describe('text on the hosted pages is valid Unicode', () => {
  it('a holder name whose bytes spell a lone surrogate is refused as invalid text, and nothing is charged', async () => {
    const t = await checkout();
    const r = await send(t.path, t.csrf, 'Ada%ED%A0%80');
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // The page shows card reasons without the field name, as it does for every card field.
    expect(r.text).toContain('Please check your card details: is not valid Unicode text');
    expect(await statusOf(t.id)).toBe(100050);
    // The same page then takes a valid name, percent-encoded UTF-8 (é) included.
    await send(t.path, t.csrf, 'Ad%C3%A9');
    expect(await statusOf(t.id)).toBe(200000);
  });

  it('a form field whose bytes are not UTF-8 at all is a 400 page, nothing charged', async () => {
    const t = await checkout();
    const r = await send(t.path, t.csrf, 'Ada%FF');
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await statusOf(t.id)).toBe(100050);
  });

  it('a form field holding U+0000 is a 400 page on both engines, nothing charged; an over-long holder name is a card reason', async () => {
    const t = await checkout();
    const r = await send(t.path, t.csrf, 'Evil%00Name');
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await statusOf(t.id)).toBe(100050);
    const long = await send(t.path, t.csrf, 'x'.repeat(201));
    expect(long.text).toContain('Please check your card details: must be at most 200 characters');
    expect(await statusOf(t.id)).toBe(100050);
    await send(t.path, t.csrf, 'x'.repeat(200));
    expect(await statusOf(t.id)).toBe(200000);
  });
});
