import { rowsOf } from '../helpers/rows.js';
import { describe, expect, it } from 'vitest';
import type { Ctx } from '../../src/ctx.js';
import { deliverDue } from '../../src/notify/deliver.js';
import { createMerchant, requireMerchant, updateMerchant } from '../../src/services/merchants.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import { testMerchant, type TestApp, TEST_NOW } from '../helpers/ctx.js';
import { callbackHarness } from '../helpers/callback-harness.js';
import { enqueue, outboxRow, paymentBody } from '../helpers/events.js';

import { cardYear } from '../helpers/cards.js';

/*
 * Callback targets and the address policy (PAYGATE_CALLBACK_PRIVATE): link-local and cloud
 * metadata addresses are never called, `deny` calls global addresses only; a notifyUrl the URL
 * alone shows to be refused is a 1001 when given, and at delivery the address actually connected
 * to decides.
 */

let app: TestApp;
const { rx, open } = callbackHarness();

const card = JSON.stringify({ cardNumber: '4242424242424242', month: '12', year: cardYear(TEST_NOW), cvv: '123' });
const pay = (n: string, notifyUrl: string) => ({
  requestId: n,
  relationId: n,
  paymentType: 'PAY',
  payAmount: '10.00',
  currency: 'USD',
  cardInfo: card,
  notifyUrl,
});
const count = async (ctx: Ctx, table: string): Promise<number> =>
  ((await rowsOf(ctx).get(`SELECT count(*) AS n FROM ${table}`)) as { n: number }).n;
const errorOf = async (f: () => unknown): Promise<unknown> => {
  try {
    await f();
  } catch (e) {
    return e;
  }
  return undefined;
};
/** A target stored before it would be refused (older version, or the policy changed since). */
const setMerchantUrl = async (ctx: Ctx, id: string, url: string): Promise<void> => {
  await rowsOf(ctx).run('UPDATE merchants SET notify_url = ? WHERE id = ?', url, id);
};

const METADATA_URLS = [
  'http://169.254.169.254/latest/meta-data/',
  'http://2852039166/',
  'http://0251.0376.0251.0376/',
  'http://0xA9.0xFE.0xA9.0xFE/',
  'http://[::ffff:169.254.169.254]/',
  'http://[fd00:ec2::254]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[::ffff:0:a9fe:a9fe]/',
  'http://100.100.100.200/latest/meta-data/',
];

describe('a notifyUrl that can never be called back is 1001 where it is given', () => {
  it.each(METADATA_URLS)('by default: %s (merchant create, merchant update, transaction)', async (url) => {
    app = await open();
    const m = await testMerchant(app.ctx, { notifyUrl: rx.url() });
    const merchants = await count(app.ctx, 'merchants');
    expect(await errorOf(() => createMerchant(app.ctx, { name: 'Evil', notifyUrl: url }))).toMatchObject({
      code: '1001',
      field: 'notifyUrl',
      message: expect.stringMatching(
        /^notifyUrl: host .* is a link-local or cloud metadata address; callbacks never go there$/,
      ),
    });
    expect(await count(app.ctx, 'merchants')).toBe(merchants);

    expect(await errorOf(() => updateMerchant(app.ctx, m.merchantId, { notifyUrl: url }))).toMatchObject({
      code: '1001',
      field: 'notifyUrl',
    });
    expect((await requireMerchant(app.ctx, m.merchantId)).notifyUrl).toBe(rx.url());

    const merchant = await requireMerchant(app.ctx, m.merchantId);
    expect(await errorOf(() => createTransaction(app.ctx, merchant, pay('r1', url)))).toMatchObject({
      code: '1001',
      field: 'notifyUrl',
    });
    expect(await count(app.ctx, 'transactions')).toBe(0);
    expect(await count(app.ctx, 'outbox_events')).toBe(0);
  });

  const LOOPBACK_AND_PRIVATE = [
    'http://127.0.0.1:9/',
    'http://[::127.0.0.1]/',
    'http://[::1]/',
    'http://2130706433/',
    'http://localhost:9/',
    'http://10.0.0.1/',
    'http://[fd12::1]/',
    'http://100.64.0.1/',
  ];

  it.each(LOOPBACK_AND_PRIVATE)('with PAYGATE_CALLBACK_PRIVATE=deny: %s', async (url) => {
    app = await open({ env: { PAYGATE_CALLBACK_PRIVATE: 'deny' } });
    const m = await testMerchant(app.ctx, { notifyUrl: 'https://shop.example/notify' });
    expect(await errorOf(() => createMerchant(app.ctx, { name: 'Local', notifyUrl: url }))).toMatchObject({
      code: '1001',
      field: 'notifyUrl',
      message: expect.stringMatching(/PAYGATE_CALLBACK_PRIVATE=deny allows only global addresses$/),
    });
    expect(await errorOf(() => updateMerchant(app.ctx, m.merchantId, { notifyUrl: url }))).toMatchObject({
      code: '1001',
      field: 'notifyUrl',
    });
    const merchant = await requireMerchant(app.ctx, m.merchantId);
    expect(await errorOf(() => createTransaction(app.ctx, merchant, pay('r1', url)))).toMatchObject({
      code: '1001',
      field: 'notifyUrl',
    });
    expect(await count(app.ctx, 'transactions')).toBe(0);
  });

  it.each(LOOPBACK_AND_PRIVATE)('by default %s is accepted (a shop on its own host)', async (url) => {
    app = await open();
    const m = await createMerchant(app.ctx, { name: 'Local', notifyUrl: url });
    expect(m.notifyUrl).toBe(url);
    const view = await createTransaction(app.ctx, await requireMerchant(app.ctx, m.merchantId), pay('r1', url));
    expect(view.status).toBe('200000');
  });
});

describe('delivery connects only where the policy allows', () => {
  it('by default a loopback receiver gets its callbacks, by address and by name', async () => {
    app = await open();
    const m = await testMerchant(app.ctx, { notifyUrl: rx.url('/by-ip') });
    await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 1) });
    await enqueue(app.ctx, {
      merchantId: m.merchantId,
      body: paymentBody(m.merchantId, 2),
      notifyUrl: rx.url('/by-name').replace('127.0.0.1', 'localhost'),
    });
    expect(await deliverDue(app.ctx)).toEqual({ delivered: 2, failed: 0, dead: 0 });
    expect(rx.received.map((r) => r.path).sort()).toEqual(['/by-ip', '/by-name']);
  });

  it('by default an event stored with a metadata address is never sent: DEAD after one attempt, with the reason', async () => {
    app = await open();
    const m = await testMerchant(app.ctx);
    await setMerchantUrl(app.ctx, m.merchantId, 'http://2852039166/latest/meta-data/');
    const viaMerchant = await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 1) });
    const own = await enqueue(app.ctx, {
      merchantId: m.merchantId,
      body: paymentBody(m.merchantId, 2),
      notifyUrl: 'http://[::ffff:169.254.169.254]/',
    });
    expect(await deliverDue(app.ctx)).toEqual({ delivered: 0, failed: 0, dead: 2 });
    expect(await outboxRow(app.ctx, viaMerchant)).toMatchObject({
      status: 'DEAD',
      attempts: 1,
      lastHttpStatus: null,
      lastError:
        'refused: notifyUrl host 169.254.169.254 is a link-local or cloud metadata address; callbacks never go there',
    });
    expect(await outboxRow(app.ctx, own)).toMatchObject({
      status: 'DEAD',
      attempts: 1,
      lastError:
        'refused: notifyUrl host ::ffff:a9fe:a9fe (carrying 169.254.169.254) is a link-local or cloud metadata address; callbacks never go there',
    });
  });

  it('with deny, a loopback address in the URL is never connected to: DEAD after one attempt', async () => {
    app = await open({ env: { PAYGATE_CALLBACK_PRIVATE: 'deny' } });
    const m = await testMerchant(app.ctx);
    await setMerchantUrl(app.ctx, m.merchantId, rx.url());
    const id = await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 1) });
    const mapped = await enqueue(app.ctx, {
      merchantId: m.merchantId,
      body: paymentBody(m.merchantId, 2),
      notifyUrl: rx.url().replace('127.0.0.1', '[::127.0.0.1]'),
    });
    expect(await deliverDue(app.ctx)).toEqual({ delivered: 0, failed: 0, dead: 2 });
    expect(rx.received).toHaveLength(0);
    expect(await outboxRow(app.ctx, id)).toMatchObject({
      status: 'DEAD',
      attempts: 1,
      lastError:
        'refused: notifyUrl host 127.0.0.1 is a loopback address; PAYGATE_CALLBACK_PRIVATE=deny allows only global addresses',
    });
    expect((await outboxRow(app.ctx, mapped)).lastError).toMatch(
      /^refused: notifyUrl host ::7f00:1 \(carrying 127\.0\.0\.1\) is a loopback address/,
    );
  });

  it('with deny, a host name resolving to loopback is refused when connecting: a failed attempt with the reason, nothing received', async () => {
    app = await open({ env: { PAYGATE_CALLBACK_PRIVATE: 'deny' } });
    const m = await testMerchant(app.ctx);
    // The receiver is listening on 127.0.0.1: without the policy this name would reach it.
    await setMerchantUrl(app.ctx, m.merchantId, rx.url().replace('127.0.0.1', 'localhost'));
    const id = await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 1) });
    expect(await deliverDue(app.ctx)).toEqual({ delivered: 0, failed: 1, dead: 0 });
    expect(rx.received).toHaveLength(0);
    expect(await outboxRow(app.ctx, id)).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      lastHttpStatus: null,
      nextAttemptAt: app.ctx.clock.now() + 60_000,
      lastError: expect.stringMatching(
        /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address; PAYGATE_CALLBACK_PRIVATE=deny allows only global addresses$/,
      ),
    });
  });
});
