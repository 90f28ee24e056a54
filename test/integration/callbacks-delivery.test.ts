import { rowsOf } from '../helpers/rows.js';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { deliverDue } from '../../src/notify/deliver.js';
import { requireMerchant, updateMerchant } from '../../src/services/merchants.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import { testMerchant, type TestApp, TEST_NOW } from '../helpers/ctx.js';
import { callbackHarness } from '../helpers/callback-harness.js';
import {
  enqueue,
  enqueueIn,
  outboxRow,
  paymentBody,
  subscriptionBody,
  SUBSCRIPTION_EVENT_TYPES,
} from '../helpers/events.js';
import { verifyV1Callback, verifyV2Callback } from '../helpers/receiver.js';
import { cardYear } from '../helpers/cards.js';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/signatures.json', import.meta.url), 'utf8')) as {
  secret: string;
  v2Callbacks: { rawBody: string; t: number; header: string }[];
};

let app: TestApp;
const { rx, open } = callbackHarness();

describe('independent verifier', () => {
  it('accepts the shared v2 callback vector', async () => {
    for (const v of vectors.v2Callbacks) expect(verifyV2Callback(v.header, v.rawBody, vectors.secret)).toBe(v.t);
  });
});

describe('callback bodies and signatures', () => {
  it('v2: every event kind arrives with the documented body and a valid X-Paygate-Signature', async () => {
    app = await open();
    const m = await testMerchant(app.ctx, { notifyUrl: rx.url('/hooks/paygate') });
    const sent = new Map<string, Record<string, string>>();
    const pay = paymentBody(m.merchantId, 1, { subscriptionId: 'sub_a', subscriptionCode: 'SC_sub_a' });
    sent.set(await enqueue(app.ctx, { merchantId: m.merchantId, body: pay }), pay);
    for (const [i, type] of SUBSCRIPTION_EVENT_TYPES.entries()) {
      const body = subscriptionBody(m.merchantId, `sub_${i}`, type, i);
      sent.set(await enqueue(app.ctx, { merchantId: m.merchantId, body, subscriptionId: `sub_${i}` }), body);
    }

    const before = Math.floor(Date.now() / 1000);
    const r = await deliverDue(app.ctx);
    const after = Math.floor(Date.now() / 1000);
    expect(r).toEqual({ delivered: 5, failed: 0, dead: 0 });
    expect(rx.received).toHaveLength(5);
    for (const got of rx.received) {
      expect(got.path).toBe('/hooks/paygate');
      expect(got.headers['content-type']).toMatch(/^application\/json/);
      const eventId = got.body.eventId ?? '';
      const { notifyType, ...rest } = sent.get(eventId) ?? {};
      // The exact documented body: eventId added right after notifyType, no sign for v2.
      expect(got.rawBody).toBe(JSON.stringify({ notifyType, eventId, ...rest }));
      expect(Object.values(got.body).every((v) => typeof v === 'string')).toBe(true);
      const t = verifyV2Callback(got.headers['x-paygate-signature'], got.rawBody, m.secret);
      // Transport time is the real clock's (the test clock is months away from it).
      expect(t).toBeGreaterThanOrEqual(before);
      expect(t).toBeLessThanOrEqual(after);
      expect(verifyV2Callback(got.headers['x-paygate-signature'], got.rawBody, 'sk_wrong')).toBeUndefined();
      const row = await outboxRow(app.ctx, eventId);
      expect(row).toMatchObject({
        status: 'DELIVERED',
        attempts: 1,
        lastHttpStatus: 200,
        lastError: null,
        deliveredAt: app.ctx.clock.now(),
      });
    }
    // Nothing left to do: a second pass sends nothing again.
    expect(await deliverDue(app.ctx)).toEqual({ delivered: 0, failed: 0, dead: 0 });
    expect(rx.received).toHaveLength(5);
  });

  it('v1: every event kind carries a body sign over POST + the notifyUrl path (query excluded)', async () => {
    app = await open();
    const m = await testMerchant(app.ctx, { signatureVersion: 1, notifyUrl: rx.url('/shop/notify?source=paygate') });
    const ids = [await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 7) })];
    for (const [i, type] of SUBSCRIPTION_EVENT_TYPES.entries()) {
      ids.push(
        await enqueue(app.ctx, {
          merchantId: m.merchantId,
          body: subscriptionBody(m.merchantId, `sub_v1_${i}`, type, i),
          subscriptionId: `sub_v1_${i}`,
        }),
      );
    }
    expect(await deliverDue(app.ctx)).toEqual({ delivered: 5, failed: 0, dead: 0 });
    expect(rx.received.map((g) => g.body.eventId).sort()).toEqual([...ids].sort());
    for (const got of rx.received) {
      expect(got.path).toBe('/shop/notify');
      expect(got.headers['x-paygate-signature']).toBeUndefined();
      expect(got.body.sign).toMatch(/^[0-9a-f]{64}$/);
      expect(verifyV1Callback('/shop/notify', got.body, m.secret)).toBe(true);
      // Bound to the path: the same body does not verify for another endpoint, nor with another key.
      expect(verifyV1Callback('/other', got.body, m.secret)).toBe(false);
      expect(verifyV1Callback('/shop/notify', { ...got.body, payAmount: '99.00' }, m.secret)).toBe(false);
    }
  });

  it("the event's own notifyUrl wins over the merchant's default", async () => {
    app = await open();
    const m = await testMerchant(app.ctx, { notifyUrl: rx.url('/merchant-default') });
    await enqueue(app.ctx, {
      merchantId: m.merchantId,
      body: paymentBody(m.merchantId, 1),
      notifyUrl: rx.url('/per-transaction'),
    });
    await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 2) });
    await deliverDue(app.ctx);
    expect(rx.received.map((g) => [g.body.relationId, g.path]).sort()).toEqual([
      ['order-1', '/per-transaction'],
      ['order-2', '/merchant-default'],
    ]);
  });
});

describe('end to end from a real payment', () => {
  it('an approved and a declined PAY reach the transaction notifyUrl, signed, with no card data', async () => {
    app = await open();
    const created = await testMerchant(app.ctx);
    const m = await requireMerchant(app.ctx, created.merchantId);
    const card = (pan: string) =>
      JSON.stringify({ holderName: 'Ada L', cardNumber: pan, month: '12', year: cardYear(TEST_NOW), cvv: '123' });
    const ok = await createTransaction(app.ctx, m, {
      requestId: 'r1',
      relationId: 'o1',
      paymentType: 'PAY',
      payAmount: '10.00',
      currency: 'USD',
      cardInfo: card('4242424242424242'),
      notifyUrl: rx.url('/pay'),
    });
    const no = await createTransaction(app.ctx, m, {
      requestId: 'r2',
      relationId: 'o2',
      paymentType: 'PAY',
      payAmount: '5.50',
      currency: 'USD',
      cardInfo: card('4000000000000002'),
      notifyUrl: rx.url('/pay'),
    });
    expect(await deliverDue(app.ctx)).toEqual({ delivered: 2, failed: 0, dead: 0 });
    const byRelation = new Map(rx.received.map((g) => [g.body.relationId, g]));
    expect(byRelation.get('o1')?.body).toMatchObject({
      notifyType: 'PAYMENT',
      transactionOrderId: ok.transactionOrderId,
      status: '200000',
      payAmount: '10.00',
      currency: 'USD',
      paymentType: 'PAY',
    });
    expect(byRelation.get('o2')?.body).toMatchObject({
      notifyType: 'PAYMENT',
      transactionOrderId: no.transactionOrderId,
      status: '300000',
      payAmount: '5.50',
      failReason: 'card_declined',
    });
    for (const g of rx.received) {
      expect(g.rawBody).not.toMatch(/4242424242424242|4000000000000002|cvv/);
      expect(verifyV2Callback(g.headers['x-paygate-signature'], g.rawBody, created.secret)).toBeDefined();
    }
  });
});

describe('guard rails', () => {
  it('an event with no notifyUrl anywhere is not written at all', async () => {
    app = await open();
    const m = await testMerchant(app.ctx);
    const written = await app.ctx.store.transaction((tx) =>
      tx.enqueueEvent({
        merchantId: m.merchantId,
        kind: 'PAYMENT',
        eventType: 'PAYMENT',
        body: paymentBody(m.merchantId, 1),
        now: app.ctx.clock.now(),
      }),
    );
    expect(written).toBeUndefined();
    expect(await rowsOf(app.ctx).get('SELECT count(*) AS n FROM outbox_events')).toEqual({ n: 0 });
    // Its own URL, or the merchant's, is enough.
    expect(
      await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 2), notifyUrl: rx.url() }),
    ).toMatch(/^evt_/);
    await updateMerchant(app.ctx, m.merchantId, { notifyUrl: rx.url() });
    expect(await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 3) })).toMatch(/^evt_/);
  });

  it('an event whose merchant cleared its URL, a non-http URL and an over-long URL end DEAD with the reason, nothing sent', async () => {
    app = await open();
    const m = await testMerchant(app.ctx, { notifyUrl: rx.url() });
    const none = await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 1) });
    await updateMerchant(app.ctx, m.merchantId, { notifyUrl: '' });
    const ftp = await enqueue(app.ctx, {
      merchantId: m.merchantId,
      body: paymentBody(m.merchantId, 2),
      notifyUrl: 'ftp://127.0.0.1/x',
    });
    const long = await enqueue(app.ctx, {
      merchantId: m.merchantId,
      body: paymentBody(m.merchantId, 3),
      notifyUrl: rx.url('/' + 'a'.repeat(500)),
    });
    expect(await deliverDue(app.ctx)).toEqual({ delivered: 0, failed: 0, dead: 3 });
    expect(rx.received).toHaveLength(0);
    expect(await outboxRow(app.ctx, none)).toMatchObject({
      status: 'DEAD',
      lastError: expect.stringMatching(/no notifyUrl/),
    });
    expect(await outboxRow(app.ctx, ftp)).toMatchObject({
      status: 'DEAD',
      lastError: expect.stringMatching(/http or https/),
    });
    expect(await outboxRow(app.ctx, long)).toMatchObject({
      status: 'DEAD',
      lastError: expect.stringMatching(/500 characters/),
    });
  });

  it('events left without a target (the merchant cleared its URL) all end DEAD in one pass; an event with its own URL is still sent', async () => {
    app = await open();
    const m = await testMerchant(app.ctx, { notifyUrl: rx.url('/gone') });
    const now = app.ctx.clock.now();
    // One after another, as a unit of work runs: its statements share one connection.
    const orphans = await app.ctx.store.transaction(async (tx) => {
      const ids: string[] = [];
      for (let i = 0; i < 2_500; i++)
        ids.push(await enqueueIn(tx, now, { merchantId: m.merchantId, body: paymentBody(m.merchantId, i) }));
      return ids;
    });
    await updateMerchant(app.ctx, m.merchantId, { notifyUrl: '' });
    const own = await enqueue(app.ctx, {
      merchantId: m.merchantId,
      body: paymentBody(m.merchantId, 9_999),
      notifyUrl: rx.url('/own'),
    });
    expect(await deliverDue(app.ctx)).toEqual({ delivered: 1, failed: 0, dead: 2_500 });
    expect(rx.received.map((g) => g.path)).toEqual(['/own']);
    expect(await outboxRow(app.ctx, own)).toMatchObject({ status: 'DELIVERED' });
    for (const id of [...orphans.slice(0, 1), ...orphans.slice(-1)]) {
      expect(await outboxRow(app.ctx, id)).toMatchObject({
        status: 'DEAD',
        attempts: 0,
        lastError: expect.stringMatching(/no notifyUrl/),
      });
    }
  });

  it('a limited pass marks at most its limit of target-less events DEAD', async () => {
    app = await open();
    const m = await testMerchant(app.ctx, { notifyUrl: rx.url() });
    for (let i = 0; i < 5; i++)
      await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, i) });
    await updateMerchant(app.ctx, m.merchantId, { notifyUrl: '' });
    expect(await deliverDue(app.ctx, { limit: 3 })).toEqual({ delivered: 0, failed: 0, dead: 3 });
    expect(await deliverDue(app.ctx, { limit: 3 })).toEqual({ delivered: 0, failed: 0, dead: 2 });
  });

  it('a redirect is not followed: it counts as a failed attempt', async () => {
    app = await open();
    const m = await testMerchant(app.ctx, { notifyUrl: rx.url('/moved') });
    rx.answer((r) => (r.path === '/moved' ? 302 : 200));
    const id = await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 1) });
    expect(await deliverDue(app.ctx)).toEqual({ delivered: 0, failed: 1, dead: 0 });
    expect(rx.received.map((g) => g.path)).toEqual(['/moved']);
    expect(await outboxRow(app.ctx, id)).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      lastHttpStatus: 302,
      nextAttemptAt: app.ctx.clock.now() + 60_000,
    });
  });

  it('an endless response body is not read past 64 KiB: the attempt ends with the status, not the timeout', async () => {
    let sent = 0;
    const endless = createServer((req, res) => {
      req.resume();
      res.writeHead(500, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 120);
      const pump = (): void => {
        while (!res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) break;
        }
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    try {
      app = await open();
      const port = (endless.address() as AddressInfo).port;
      const m = await testMerchant(app.ctx, { notifyUrl: `http://127.0.0.1:${port}/big` });
      const id = await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 1) });
      expect(await deliverDue(app.ctx, { timeoutMs: 20_000 })).toEqual({ delivered: 0, failed: 1, dead: 0 });
      expect(await outboxRow(app.ctx, id)).toMatchObject({
        status: 'PENDING',
        attempts: 1,
        lastHttpStatus: 500,
        lastError: expect.stringMatching(/^HTTP 500: x+$/),
      });
      expect(((await outboxRow(app.ctx, id)).lastError ?? '').length).toBeLessThan(300);
      expect(sent).toBeGreaterThan(64 * 1024); // the server kept offering more than we read
    } finally {
      endless.closeAllConnections();
      await new Promise<void>((resolve) => endless.close(() => resolve()));
    }
  });

  it('a 200 whose body is still coming after the timeout is delivered at once, and its connection is closed', async () => {
    // The status line decides (SPEC §8): this receiver answers 200 and one byte at once, and would
    // end the body only after 12 s, past the 10 s timeout.
    const closed: Promise<void>[] = [];
    const late: NodeJS.Timeout[] = [];
    const slow = createServer((req, res) => {
      req.resume();
      closed.push(new Promise((resolve) => res.socket?.once('close', () => resolve())));
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('O');
      late.push(setTimeout(() => res.end('K'), 12_000));
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      app = await open();
      const port = (slow.address() as AddressInfo).port;
      const m = await testMerchant(app.ctx, { notifyUrl: `http://127.0.0.1:${port}/slow-body` });
      const id = await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 1) });
      const started = Date.now();
      expect(await deliverDue(app.ctx)).toEqual({ delivered: 1, failed: 0, dead: 0 });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await outboxRow(app.ctx, id)).toMatchObject({
        status: 'DELIVERED',
        attempts: 1,
        lastHttpStatus: 200,
        lastError: null,
      });
      // The unfinished body does not keep the connection: paygate has closed it, well before 12 s.
      expect(closed).toHaveLength(1);
      await closed[0];
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const t of late) clearTimeout(t);
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });

  it('a disabled merchant still gets its callbacks (SPEC §2)', async () => {
    app = await open();
    const m = await testMerchant(app.ctx, { notifyUrl: rx.url() });
    await rowsOf(app.ctx).run("UPDATE merchants SET status = 'DISABLED' WHERE id = ?", m.merchantId);
    await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 1) });
    expect(await deliverDue(app.ctx)).toEqual({ delivered: 1, failed: 0, dead: 0 });
  });
});
