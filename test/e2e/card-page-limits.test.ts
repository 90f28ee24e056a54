import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { paygateAsync } from '../helpers/cli-async.js';
import { receivedWhen, startReceiver, type Received, type Receiver } from '../helpers/receiver.js';
import { client, createMerchant, raw, startServe, type Served, type TestMerchant } from '../helpers/serve.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';

/**
 * SPEC §14: the card-update page of a real `serve` on the real clock, its link issued by a renewal
 * run as `renew --at` a month ahead (as a renewal host whose clock runs ahead would). A link
 * allows three card checks counted per link, whatever clock issued it, and one card at a time.
 */

let database: ShopDatabase;
let srv: Served;
let rx: Receiver;
let m: TestMerchant;
let planId: string;
const year = String(new Date().getUTCFullYear() + 3);

beforeAll(async () => {
  database = await shopDatabase({ prefix: 'paygate-card-limits-' });
  rx = await startReceiver();
  m = createMerchant(database.db, 2, 'Tea Shop');
  expect(
    paygate(['--db', database.db, 'merchant', 'update', m.merchantId, '--notify-url', rx.url('/hooks')]).status,
  ).toBe(0);
  srv = await startServe({ dbPath: database.db });
  const plan = await client(srv.url, m).post('/subscription/plan/create', {
    planName: 'Monthly tea',
    price: '4.99',
    currency: 'USD',
    cycleType: 'MONTHLY',
    cycleLength: 1,
  });
  planId = plan.body.data.planId as string;
}, 90_000);

afterAll(async () => {
  await srv?.stop();
  await rx?.close();
  await database?.drop();
});

/** A subscription whose first renewal, run a month ahead of serve's clock, was declined: its updateCardUrl. */
async function failedRenewalLink(userId: string): Promise<{ subscriptionId: string; link: string }> {
  const c = client(srv.url, m);
  const created = await c.post('/subscription/create', {
    requestId: `limits-${userId}`,
    relationId: `limits-${userId}`,
    planId,
    userId,
    cardInfo: { holderName: 'Ada', cardNumber: '4000000000000341', month: '12', year, cvv: '123' },
  });
  const subscriptionId = created.body.data.subscriptionId as string;
  const next = (await c.get('/subscription/detail', { subscriptionId })).body.data.nextBillingTime as string;
  const paid = (r: Received) => r.body.notifyType === 'PAYMENT' && r.body.subscriptionId === subscriptionId;
  expect(await receivedWhen(rx, paid)).toBeDefined();
  const run = await paygateAsync(['--db', database.db, '--json', 'renew', '--at', next], {
    PAYGATE_PUBLIC_URL: srv.url,
  });
  expect(run.status, run.stderr).toBe(0);
  const failed = rx.received.find(
    (r) => r.body.eventType === 'RENEW_FAILED' && r.body.subscriptionId === subscriptionId,
  );
  const link = failed?.body.updateCardUrl ?? '';
  expect(link.startsWith(`${srv.url}/card/`)).toBe(true);
  return { subscriptionId, link };
}

/** The form's CSRF token, as a browser reads it from the page. */
async function csrfOf(link: string): Promise<string> {
  const page = await raw(link);
  expect(page.status).toBe(200);
  return /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
}

function submit(link: string, csrf: string, cardNumber: string) {
  const form = new URLSearchParams({ csrf, holderName: 'Ada', cardNumber, month: '12', year, cvv: '123' });
  return raw(link, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
}

const cardOnFile = async (subscriptionId: string) =>
  database.rows.get<{ last4: string }>(
    'SELECT c.last4 FROM subscriptions s JOIN cards c ON c.id = s.card_id WHERE s.id = ?',
    subscriptionId,
  );

describe('the card-update page counts its checks per link, on one clock', () => {
  it('a link issued by `renew --at` a month ahead stops after three declined cards entered on serve’s clock', async () => {
    const { subscriptionId, link } = await failedRenewalLink('ada');
    for (const card of ['4000000000000002', '4000000000009995', '4000000000000002']) {
      const answer = await submit(link, await csrfOf(link), card);
      expect(answer.status).toBe(200);
      expect(answer.text).toContain('Update your card');
      expect(answer.text).toMatch(/declined|insufficient funds/);
    }
    const csrf = /name="csrf" value="([^"]+)"/.exec((await raw(link)).text)?.[1];
    expect(csrf).toBeUndefined();
    expect((await raw(link)).status).toBe(404);
    expect((await submit(link, 'any', '4242424242424242')).status).not.toBe(200);
    expect(await cardOnFile(subscriptionId)).toEqual({ last4: '0341' });
  }, 90_000);

  it('two cards submitted at once on one link: one is saved with "Card updated", the other is told the link was already used', async () => {
    const { subscriptionId, link } = await failedRenewalLink('grace');
    const csrf = await csrfOf(link);
    const cards = ['4242424242424242', '5555555555554444'];
    const answers = await Promise.all(cards.map((card) => submit(link, csrf, card)));
    const saved = answers.findIndex((a) => a.text.includes('Card updated'));
    expect(saved).toBeGreaterThanOrEqual(0);
    const other = answers[1 - saved];
    expect(other?.text).not.toContain('Card updated');
    // 409 while the first card was being checked, 404 ("no longer available") once it was saved.
    expect([409, 404]).toContain(other?.status);
    expect(other?.text).toContain('already used');
    expect(await cardOnFile(subscriptionId)).toEqual({ last4: cards[saved]?.slice(-4) });
  }, 90_000);
});
