import { describe, expect, it } from 'vitest';
import { cardYear } from '../helpers/cards.js';
import { signV2 } from '../helpers/serve.js';
import { stripeShop } from '../helpers/stripe-shop.js';

/**
 * Stopping `serve` (a deploy, a restart) while a request is half-way: the request is finished and
 * its outcome recorded before the database is closed, even when its client has already hung up.
 * The Stripe stand-in holds the PAY's charge until the server is stopping.
 */
describe('serve stopping with a request under way', () => {
  it('SIGTERM waits for a PAY whose client hung up, records its outcome, and exits 0', async () => {
    const shop = await stripeShop({ prefix: 'paygate-shutdown-', name: 'Shutdown Shop' });
    try {
      let reached!: () => void;
      const atStripe = new Promise<void>((r) => (reached = r));
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      shop.stripe.faults.inject(
        {
          kind: 'before',
          run: async () => {
            reached();
            await gate;
          },
        },
        { match: { method: 'POST', path: '/v1/payment_intents' } },
      );
      const path = `/payment/${shop.m.apiKey}/transaction`;
      const relationId = `rel-shutdown-${Date.now()}`;
      const payload = JSON.stringify({
        merchantId: shop.m.merchantId,
        requestId: `req-shutdown-${Date.now()}`,
        relationId,
        paymentType: 'PAY',
        payAmount: '12.34',
        currency: 'USD',
        cardInfo: JSON.stringify({
          holderName: 'Ada Lovelace',
          cardNumber: '4242424242424242',
          month: '12',
          year: cardYear(),
          cvv: '123',
        }),
      });
      const hangUp = new AbortController();
      const answer = fetch(shop.srv.url + path, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-paygate-signature': signV2('POST', path, payload, shop.m.secret),
        },
        body: payload,
        signal: hangUp.signal,
      }).catch((e: unknown) => e);
      await atStripe;
      hangUp.abort();
      expect(await answer).toBeInstanceOf(Error);

      const stopped = shop.srv.stop('SIGTERM');
      // Long enough for the server to have closed its connections and reached its shutdown hooks.
      await new Promise((r) => setTimeout(r, 500));
      expect(shop.srv.proc.exitCode).toBeNull();
      release();
      expect(await stopped).toBe(0);

      expect(await shop.rows.get('SELECT status FROM transactions WHERE relation_id = ?', relationId)).toEqual({
        status: 200000,
      });
      expect(shop.srv.output()).not.toMatch(/internal error|Cannot use a pool|database connection is not open/);
    } finally {
      await shop.stop();
    }
  });
});
