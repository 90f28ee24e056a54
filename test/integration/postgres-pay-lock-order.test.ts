import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { requireMerchant } from '../../src/services/merchants.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import { cardYear } from '../helpers/cards.js';
import { type TestApp, TEST_NOW, testApp, testMerchant } from '../helpers/ctx.js';
import { pgAvailable } from '../helpers/postgres.js';

/**
 * The order in which a paid sandbox PAY takes its locks on PostgreSQL (src/store/postgres/pay.ts):
 * its merchant's row first, then its idempotency key. Taken the other way round, a batch of the
 * merchant's PAYs holding the row could wait for a key that a duplicate on another instance holds
 * while that duplicate waits for the row: a deadlock, which PostgreSQL breaks after a second.
 */
let app: TestApp;
const clients: pg.Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.end()));
  await app?.close();
});

async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  clients.push(c);
  return c;
}

describe.skipIf(!pgAvailable())('a paid sandbox PAY on PostgreSQL', () => {
  it('waits for its merchant’s row before it writes its key: meanwhile the key is free', async () => {
    app = await testApp({ engine: 'postgres' });
    const m = await requireMerchant(app.ctx, (await testMerchant(app.ctx)).merchantId);
    const holder = await connect(app.dbPath);
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM merchants WHERE id = $1 FOR UPDATE', [m.id]);

    const paid = createTransaction(app.ctx, m, {
      requestId: 'held-1',
      relationId: 'order-held-1',
      paymentType: 'PAY',
      payAmount: '10.00',
      currency: 'USD',
      cardInfo: JSON.stringify({ cardNumber: '4242424242424242', month: '12', year: cardYear(TEST_NOW), cvv: '123' }),
    });
    const probe = await connect(app.dbPath);
    // The PAY's statement is running and waits on a lock (the merchant's row).
    for (let i = 0; ; i++) {
      const r = await probe.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%idempotency_keys%' AND datname = current_database()",
      );
      if (r.rows[0]?.n === 1) break;
      if (i > 200) throw new Error('the PAY never waited on a lock');
      await new Promise((r) => setTimeout(r, 10));
    }
    // Its key is not written yet: another writer takes it without waiting (and gives it back).
    await probe.query('BEGIN');
    await probe.query("SET LOCAL lock_timeout = '500ms'");
    const taken = await probe.query(
      `INSERT INTO idempotency_keys (merchant_id, scope, request_id, request_hash, resource_id, created_at)
       VALUES ($1, 'transaction', 'held-1', 'probe', 'probe', 0) ON CONFLICT DO NOTHING`,
      [m.id],
    );
    expect(taken.rowCount).toBe(1);
    await probe.query('ROLLBACK');

    await holder.query('COMMIT');
    expect((await paid).status).toBe('200000');
  });
});
