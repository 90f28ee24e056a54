import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { sendRaw } from '../helpers/socket.js';
import { client, createMerchant, raw, type Answer, type Served, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';

/**
 * The hosted pages over a real serve, driven as a browser without JavaScript would (GET the page,
 * POST its form with the CSRF token it carries; redirects not followed, to see them).
 */
let srv: Served;
let db: string;
let shop: TestMerchant;
let served: ServedShop;
let n = 0;
const YEAR = String(new Date().getUTCFullYear() + 3);
const SHOP = 'https://shop.example';

beforeAll(async () => {
  served = await servedShop({ merchants: [[2, 'Boutique']] });
  ({ srv, db } = served);
  shop = served.merchants[0] as TestMerchant;
});
afterAll(() => served?.stop());

async function checkout(
  m: TestMerchant,
  extra: Record<string, unknown> = {},
): Promise<{ path: string; id: string; relationId: string }> {
  n++;
  const r = await client(srv.url, m).post(`/payment/${m.apiKey}/transaction`, {
    requestId: `p-${n}`,
    relationId: `p-${n}`,
    paymentType: 'CHECKOUT',
    payAmount: '7.00',
    currency: 'EUR',
    ...extra,
  });
  expect(r.body.rtn_code, JSON.stringify(r.body)).toBe('0000');
  return {
    path: new URL(r.body.data.url as string).pathname,
    id: r.body.data.transactionOrderId as string,
    relationId: `p-${n}`,
  };
}

/** The redirect carries the result: transactionOrderId, relationId and status as query parameters. */
const result = (t: { id: string; relationId: string }, status: number): string =>
  `transactionOrderId=${t.id}&relationId=${t.relationId}&status=${status}`;

function csrfOf(html: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(html);
  if (!m?.[1]) throw new Error(`no csrf in page:\n${html}`);
  return m[1];
}

function post(path: string, form: Record<string, string>): Promise<Answer> {
  return raw(srv.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

function payForm(csrf: string, cardNumber: string): Record<string, string> {
  return { csrf, action: 'pay', holderName: 'Ada Lovelace', cardNumber, month: '12', year: YEAR, cvv: '123' };
}

interface TransactionRow {
  status: number;
  return_url: string | null;
  failed_url: string | null;
  cancel_url: string | null;
  card_last4: string | null;
}

async function row(id: string): Promise<TransactionRow> {
  const r = await served.rows.get<TransactionRow>(
    'SELECT status, return_url, failed_url, cancel_url, card_last4 FROM transactions WHERE id = ?',
    id,
  );
  if (!r) throw new Error(`no transaction ${id}`);
  return r;
}

const expectHtml = (r: Answer, what: string) => {
  expect(r.headers.get('content-type'), what).toBe('text/html; charset=utf-8');
  expect(r.status, what).toBeLessThan(500);
};

describe('redirect URLs with characters outside Latin-1', () => {
  const urls = {
    returnUrl: `${SHOP}/merci/€?note=thé#fin`,
    failedUrl: `${SHOP}/échec/😀`,
    cancelUrl: 'https://bücher.example/annulé',
  };

  it('are accepted and stored WHATWG-serialised (percent-encoded, punycode host)', async () => {
    const { id } = await checkout(shop, urls);
    expect(await row(id)).toMatchObject({
      return_url: `${SHOP}/merci/%E2%82%AC?note=th%C3%A9#fin`,
      failed_url: `${SHOP}/%C3%A9chec/%F0%9F%98%80`,
      cancel_url: 'https://xn--bcher-kva.example/annul%C3%A9',
    });
  });

  it('a paid checkout redirects to the encoded returnUrl (no 500 after the charge)', async () => {
    const t = await checkout(shop, urls);
    const page = await raw(srv.url + t.path);
    const r = await post(t.path, payForm(csrfOf(page.text), '4242424242424242'));
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`${SHOP}/merci/%E2%82%AC?note=th%C3%A9&${result(t, 200000)}#fin`);
    expect((await row(t.id)).status).toBe(200000);
  });

  it('cancel and the third decline redirect to the encoded cancelUrl and failedUrl', async () => {
    const a = await checkout(shop, urls);
    const cancelled = await post(a.path, { csrf: csrfOf((await raw(srv.url + a.path)).text), action: 'cancel' });
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.get('location')).toBe(`https://xn--bcher-kva.example/annul%C3%A9?${result(a, 300020)}`);

    const b = await checkout(shop, urls);
    const csrf = csrfOf((await raw(srv.url + b.path)).text);
    let last: Answer | undefined;
    for (let i = 0; i < 3; i++) last = await post(b.path, payForm(csrf, '4000000000000002'));
    expect(last?.status).toBe(303);
    expect(last?.headers.get('location')).toBe(`${SHOP}/%C3%A9chec/%F0%9F%98%80?${result(b, 300000)}`);
    expect((await row(b.id)).status).toBe(300000);
  });

  it('a URL stored raw by an older version is still sent encoded', async () => {
    const t = await checkout(shop, urls);
    await served.rows.run('UPDATE transactions SET return_url = ? WHERE id = ?', `${SHOP}/merci/€`, t.id);
    const r = await post(t.path, payForm(csrfOf((await raw(srv.url + t.path)).text), '4242424242424242'));
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`${SHOP}/merci/%E2%82%AC?${result(t, 200000)}`);
  });

  it('something that is not a URL is still 1001 naming the field', async () => {
    const r = await client(srv.url, shop).post(`/payment/${shop.apiKey}/transaction`, {
      requestId: 'bad-url',
      relationId: 'bad-url',
      paymentType: 'CHECKOUT',
      payAmount: '1.00',
      currency: 'EUR',
      returnUrl: 'https://exa mple/€',
    });
    expect(r.body).toMatchObject({ rtn_code: '1001', rtn_msg: expect.stringContaining('returnUrl') });
  });
});

describe('no path of the hosted pages answers anything but an HTML page or a redirect', () => {
  it('missing or extra segments, other methods, bad encodings, wrong bodies', async () => {
    const { path } = await checkout(shop);
    const token = path.split('/')[2] as string;
    const big = 'x'.repeat(20 * 1024);
    const tries: [string, string, Record<string, string>?, string?][] = [
      ['GET', '/checkout'],
      ['GET', '/checkout/'],
      ['GET', '/3ds/'],
      ['GET', `/checkout/${token}/extra`],
      ['GET', `//checkout/${token}`],
      ['GET', '/checkout/%zz'],
      ['GET', `/3ds/${token}`],
      ['PUT', `/checkout/${token}`],
      ['DELETE', '/3ds/x'],
      ['POST', `/checkout/${token}`, { 'content-type': 'application/json' }, '{"action":"pay"}'],
      ['POST', `/checkout/${token}`, { 'content-type': 'application/x-www-form-urlencoded' }, `csrf=${big}`],
      ['POST', `/checkout/${token}`, { 'content-type': 'application/x-www-form-urlencoded' }, 'action=pay'],
      ['POST', `/3ds/${token}`, { 'content-type': 'text/plain' }, 'hello'],
    ];
    for (const [method, p, headers, body] of tries) {
      const r = await raw(srv.url + p, {
        method,
        ...(headers ? { headers } : {}),
        ...(body !== undefined ? { body } : {}),
      });
      expectHtml(r, `${method} ${p}`);
      expect(r.text, `${method} ${p}`).toMatch(/^<!doctype html>/);
    }
    // An absolute-form request line for a page path that no route serves.
    const a = await sendRaw(srv.url, `GET ${srv.url}/checkout/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(a.status).toBe(404);
    expect(a.headers['content-type']).toBe('text/html; charset=utf-8');
  });
});

describe('the 3DS page’s form', () => {
  it('an action other than its two buttons is a 400 saying so, not an expired form, and completes nothing', async () => {
    const { path, id } = await checkout(shop);
    const toThreeDs = await post(path, payForm(csrfOf((await raw(srv.url + path)).text), '4000000000003220'));
    const threeDs = toThreeDs.headers.get('location') as string;
    const csrf = csrfOf((await raw(srv.url + threeDs)).text);
    for (const action of ['COMPLETE', '']) {
      const r = await post(threeDs, { csrf, action });
      expect(r.status, action).toBe(400);
      expect(r.text, action).toContain('Please use the Complete or Fail button on the page.');
      expect(r.text, action).not.toContain('expired');
    }
    expect((await row(id)).status).toBe(100040);
  });
});

describe('back from the 3-D Secure challenge to the checkout page', () => {
  const sandboxCharges = async (id: string) =>
    (
      await served.rows.all<{ n: string }>(
        "SELECT card_last4 || ' ' || outcome AS n FROM sandbox_charges WHERE idempotency_key LIKE ? ORDER BY idempotency_key",
        `${id}:%`,
      )
    ).map((r) => r.n);

  it('the checkout URL of a payment waiting on its 3DS sends on to the 3DS page; the form again charges nothing', async () => {
    const { path, id } = await checkout(shop);
    const csrf = csrfOf((await raw(srv.url + path)).text);
    const toThreeDs = await post(path, payForm(csrf, '4000000000003220'));
    expect(toThreeDs.status).toBe(303);
    const threeDs = toThreeDs.headers.get('location') as string;
    expect(threeDs).toBe(path.replace('/checkout/', '/3ds/'));
    // The back button: the payment is open, on its challenge, not "no longer available".
    const back = await raw(srv.url + path);
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(threeDs);
    // The same form submitted again (back, then Pay): on to the same challenge, nothing charged again.
    const again = await post(path, payForm(csrf, '4000000000003220'));
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(threeDs);
    const cancel = await post(path, { csrf, action: 'cancel' });
    expect(cancel.status).toBe(303);
    expect(cancel.headers.get('location')).toBe(threeDs);
    // Another card typed on the old form is not tried, and not sent to that card's challenge.
    const other = await post(path, payForm(csrf, '4242424242424242'));
    expect(other.status).toBe(409);
    expect(other.headers.get('location')).toBeNull();
    expect(other.text).toContain('This card was not tried');
    expect(other.text).toContain('3-D Secure check');
    expect(other.text).not.toContain('4242424242424242');
    expect((await row(id)).status).toBe(100040);
    expect(await sandboxCharges(id)).toEqual(['3220 requires_action']);
    // Finished: the checkout URL is unavailable again, as every final page.
    const done = await post(threeDs, { csrf: csrfOf((await raw(srv.url + threeDs)).text), action: 'complete' });
    expect(done.status).toBe(200);
    expect((await row(id)).status).toBe(200000);
    const after = await raw(srv.url + path);
    expect(after.status).toBe(404);
    expect(after.text).toContain('This payment page is no longer available');
  });
});

describe('a DISABLED merchant', () => {
  let d: TestMerchant;
  beforeAll(() => {
    d = createMerchant(db, 2, 'Closing Down');
  });
  const disable = () => expect(paygate(['--db', db, 'merchant', 'update', d.merchantId, '--disable']).status).toBe(0);
  const enable = () => expect(paygate(['--db', db, 'merchant', 'update', d.merchantId, '--enable']).status).toBe(0);

  it('its open checkout page answers the unavailable page and charges nothing (GET and POST)', async () => {
    const { path, id } = await checkout(d);
    const csrf = csrfOf((await raw(srv.url + path)).text);
    disable();
    try {
      const page = await raw(srv.url + path);
      expect(page.status).toBe(404);
      expect(page.text).toContain('This payment page is no longer available');
      expect(page.text).not.toContain('Pay Closing Down');
      const paid = await post(path, payForm(csrf, '4242424242424242'));
      expect(paid.status).toBe(404);
      expect(paid.text).toContain('This payment page is no longer available');
      const cancelled = await post(path, { csrf, action: 'cancel' });
      expect(cancelled.status).toBe(404);
      expect(await row(id)).toMatchObject({ status: 100050, card_last4: null });
    } finally {
      enable();
    }
    // Enabled again within its 30 minutes, the same page works again.
    expect((await raw(srv.url + path)).text).toContain('Pay Closing Down');
  });

  it('its open 3DS page answers the unavailable page and completes nothing', async () => {
    const { path, id } = await checkout(d);
    const toThreeDs = await post(path, payForm(csrfOf((await raw(srv.url + path)).text), '4000000000003220'));
    expect(toThreeDs.status).toBe(303);
    const threeDs = toThreeDs.headers.get('location') as string;
    const csrf = csrfOf((await raw(srv.url + threeDs)).text);
    disable();
    try {
      const page = await raw(srv.url + threeDs);
      expect(page.status).toBe(404);
      expect(page.text).toContain('This payment page is no longer available');
      const done = await post(threeDs, { csrf, action: 'complete' });
      expect(done.status).toBe(404);
      expect((await row(id)).status).toBe(100040);
    } finally {
      enable();
    }
  });

  it('`paygate pay` and `paygate subscribe` refuse it with error 1003 and create nothing', async () => {
    const plan = paygate([
      '--db',
      db,
      '--json',
      'plan',
      'create',
      '--merchant',
      d.merchantId,
      '--name',
      'Monthly',
      '--price',
      '5.00',
      '--cycle-type',
      'MONTHLY',
    ]);
    expect(plan.status, plan.stderr).toBe(0);
    const planId = plan.json().planId as string;
    const count = async () =>
      (
        await served.rows.get<{ n: number }>(
          'SELECT count(*) AS n FROM transactions WHERE merchant_id = ?',
          d.merchantId,
        )
      )?.n;
    const before = await count();
    disable();
    try {
      const card = ['--card', '4242424242424242', '--exp', `12/${YEAR}`, '--cvv', '123'];
      for (const args of [
        ['pay', '--merchant', d.merchantId, '--amount', '3.00', ...card],
        ['pay', '--merchant', d.merchantId, '--amount', '3.00', '--checkout'],
        ['subscribe', '--merchant', d.merchantId, '--plan', planId, '--user', 'u1', ...card],
      ]) {
        const r = paygate(['--db', db, ...args]);
        expect(r.status, args.join(' ')).toBe(1);
        expect(r.stderr, args.join(' ')).toMatch(/^error 1003: merchant mer_\w+ is disabled/);
        expect(r.stdout).toBe('');
      }
      expect(await count()).toBe(before);
    } finally {
      enable();
    }
    const ok = paygate([
      '--db',
      db,
      '--json',
      'pay',
      '--merchant',
      d.merchantId,
      '--amount',
      '3.00',
      '--card',
      '4242424242424242',
      '--exp',
      `12/${YEAR}`,
      '--cvv',
      '123',
    ]);
    expect(ok.json()).toMatchObject({ status: '200000' });
  });
});
