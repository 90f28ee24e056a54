import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Ctx } from '../../src/ctx.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import { cardYear } from '../helpers/cards.js';
import { type TestApp, TEST_NOW, TEST_VAULT_KEY, testApp, testMerchant } from '../helpers/ctx.js';
import { pgAvailable } from '../helpers/postgres.js';

/**
 * The order in which a paid sandbox PAY takes its locks on PostgreSQL (src/store/postgres/pay.ts):
 * its idempotency key first, then its merchant's row (for the invoice number), so no transaction
 * waits for a key while holding a merchant's row. A batch of one merchant's PAYs writes every key
 * before it takes the row; were a lone PAY to take the row first, it could wait for a key of that
 * batch while the batch waits for the row: a deadlock, which PostgreSQL breaks after a second.
 */
let app: TestApp;
const clients: pg.Client[] = [];
const others: Ctx[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.end()));
  await Promise.all(others.splice(0).map((c) => c.close()));
  await app?.close();
});

const card = JSON.stringify({ cardNumber: '4242424242424242', month: '12', year: cardYear(TEST_NOW), cvv: '123' });
const payBody = (requestId: string, relationId = `order-${requestId}`) => ({
  requestId,
  relationId,
  paymentType: 'PAY',
  payAmount: '10.00',
  currency: 'USD',
  cardInfo: card,
});

/** Waits until `n` statements of this database wait on a lock. */
async function lockWaits(probe: pg.Client, n: number): Promise<void> {
  for (let i = 0; ; i++) {
    const r = await probe.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
    );
    if (r.rows[0]?.n === n) return;
    if (i > 1000) throw new Error(`never ${n} statements waiting on a lock`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A connection holding, uncommitted, the key of `requestId`: whoever asks for it waits. */
async function holdKey(url: string, merchantId: string, requestId: string): Promise<pg.Client> {
  const c = await connect(url);
  await c.query('BEGIN');
  await c.query(
    `INSERT INTO idempotency_keys (merchant_id, scope, request_id, request_hash, resource_id, created_at)
     VALUES ($1, 'transaction', $2, 'other', 'other', 0)`,
    [merchantId, requestId],
  );
  return c;
}

async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  clients.push(c);
  return c;
}

describe.skipIf(!pgAvailable())('a paid sandbox PAY on PostgreSQL', () => {
  it('waits for its key before it takes its merchant’s row: meanwhile the row is free', async () => {
    app = await testApp({ engine: 'postgres' });
    const m = await requireMerchant(app.ctx, (await testMerchant(app.ctx)).merchantId);
    const holder = await holdKey(app.dbPath, m.id, 'held-1');
    const paid = createTransaction(app.ctx, m, payBody('held-1'));
    const probe = await connect(app.dbPath);
    // The PAY's statement is running and waits on a lock (the key).
    await lockWaits(probe, 1);
    // It holds no merchant's row meanwhile: another writer takes the row at once.
    await probe.query('BEGIN');
    const row = await probe.query('SELECT 1 FROM merchants WHERE id = $1 FOR UPDATE NOWAIT', [m.id]);
    expect(row.rowCount).toBe(1);
    await probe.query('ROLLBACK');

    // The key given back, the PAY writes it and is paid.
    await holder.query('ROLLBACK');
    expect((await paid).status).toBe('200000');
  });

  it('in a batch of its merchant’s PAYs, writes every key before the batch takes the row: no deadlock with a duplicate elsewhere', async () => {
    app = await testApp({ engine: 'postgres' });
    const a = app.ctx;
    // A second process on the same database.
    const b = await openApp(
      loadConfig({ db: app.dbPath }, { PAYGATE_VAULT_KEY: TEST_VAULT_KEY, PAYGATE_DB_POOL: '4' }),
    );
    others.push(b);
    const m = await requireMerchant(a, (await testMerchant(a)).merchantId);
    expect((await createTransaction(a, m, payBody('seed'))).status).toBe('200000');
    const probe = await connect(app.dbPath);
    const deadlocks = async () =>
      Number(
        (await probe.query('SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()')).rows[0]
          ?.deadlocks,
      );

    // Held from outside: the key of A's first PAY (so A batches what follows it), and the relationId
    // of the duplicate (so B's copy holds its key while it waits, before it asks for the row).
    const heldKey = await holdKey(app.dbPath, m.id, 'first');
    const holdRelation = await connect(app.dbPath);
    await holdRelation.query('BEGIN');
    await holdRelation.query(
      `INSERT INTO transactions SELECT (jsonb_populate_record(NULL::transactions,
         to_jsonb(t) || jsonb_build_object('id', 'txn_held', 'relation_id', 'order-dup'))).* FROM transactions t LIMIT 1`,
    );

    const dupOnB = createTransaction(b, m, payBody('dup'));
    await lockWaits(probe, 1);
    const first = createTransaction(a, m, payBody('first'));
    await lockWaits(probe, 2);
    // Queued behind A's first PAY: one batch, another PAY's write and then the duplicate's.
    const other = createTransaction(a, m, payBody('other'));
    const dupOnA = createTransaction(a, m, payBody('dup'));
    // (Their writes reach A's queue within a few turns; the pause leaves no doubt.)
    await new Promise((r) => setTimeout(r, 50));
    await heldKey.query('ROLLBACK');
    expect((await first).status).toBe('200000');
    // A's batch is under way and its copy of the duplicate waits for B's key.
    await lockWaits(probe, 2);
    const before = await deadlocks();
    await holdRelation.query('ROLLBACK');

    for (const r of await Promise.all([other, dupOnA, dupOnB])) expect(r.status).toBe('200000');
    expect((await dupOnA).transactionOrderId).toBe((await dupOnB).transactionOrderId);
    // The backends' counts reach the statistics when they end.
    await b.close();
    others.splice(0);
    await a.close();
    expect((await deadlocks()) - before).toBe(0);
  });
});
