import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formFields } from '../helpers/portal.js';
import { client, raw, type TestMerchant } from '../helpers/serve.js';
import { answerChallenge } from '../helpers/stripe.js';
import { type StripeShop, stripeShop } from '../helpers/stripe-shop.js';

/** The portal's card form for a merchant on Stripe: a SetupIntent, and Stripe's own 3-D Secure page (SPEC §18, §14). */
let shop: StripeShop;
let m: TestMerchant;
let planId: string;
let n = 0;
const YEAR = String(new Date().getUTCFullYear() + 2);

beforeAll(async () => {
  shop = await stripeShop({ prefix: 'paygate-stripe-portal-', name: 'Stripe Portal', webhookSecret: true });
  m = shop.m;
  const r = await client(shop.srv.url, m).post('/subscription/plan/create', {
    planName: 'Monthly',
    price: '9.99',
    currency: 'USD',
    cycleType: 'MONTHLY',
    cycleLength: 1,
  });
  planId = r.body.data.planId as string;
});
afterAll(() => shop?.stop());

/** A subscriber on Stripe, its portal open on the card form; answers the form's fields. */
async function cardForm(): Promise<{ path: string; fields: Record<string, string> }> {
  n++;
  const c = client(shop.srv.url, m);
  const card = { holderName: 'Ada', cardNumber: '4242424242424242', month: '12', year: YEAR, cvv: '123' };
  const sub = await c.post('/subscription/create', {
    requestId: `sp-${n}`,
    relationId: `sp-${n}`,
    planId,
    userId: `sp-user-${n}`,
    cardInfo: JSON.stringify(card),
  });
  expect(sub.body.rtn_code, sub.text).toBe('0000');
  const link = await c.post('/portal/session', { userId: `sp-user-${n}` });
  const path = new URL(link.body.data.url as string).pathname;
  const page = await raw(`${shop.srv.url}${path}`);
  expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://hooks.stripe.com");
  const form = await post(path, formFields(page.text, 'Update card'));
  return { path, fields: formFields(form.text, 'Save card') };
}

const post = (path: string, fields: Record<string, string>) =>
  raw(`${shop.srv.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

const withCard = (fields: Record<string, string>, cardNumber: string) => ({
  ...fields,
  holderName: 'Ada Lovelace',
  cardNumber,
  month: '11',
  year: YEAR,
  cvv: '123',
});

describe('portal card update for a merchant on Stripe', () => {
  it('saves the new card through a SetupIntent: the portal shows it on file', async () => {
    const { path, fields } = await cardForm();
    const done = await post(path, withCard(fields, '5555555555554444'));
    expect(done.status).toBe(200);
    expect(done.text).toContain('Your new card is on file.');
    expect(done.text).toContain('MASTERCARD ••4444');
  });

  it("hands a card that asks for 3-D Secure over to Stripe's page, and comes back to the portal", async () => {
    const { path, fields } = await cardForm();
    const res = await post(path, withCard(fields, '4000002760003184'));
    expect(res.status).toBe(303);
    const hand = await raw(`${shop.srv.url}${res.headers.get('location')}`);
    expect(hand.status).toBe(303);
    const back = await answerChallenge(hand.headers.get('location') ?? '', 'pass');
    // Back through the portal's sealed return route (the token itself is stored nowhere), which says how it went.
    expect(new URL(back.url).pathname).toMatch(/^\/portal\/return\/txn_/);
    const text = await back.text();
    expect(text).toContain('Your new card is on file.');
    expect(text).toContain('••3184');
    expect(text).toContain(`action="${path}"`);
  });
});
