import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, paygate } from '../helpers/cli.js';
import { tempDir, TEST_VAULT_KEY } from '../helpers/env.js';
import { createPgDatabase, pgAvailable, type PgTestDatabase } from '../helpers/postgres.js';
import { seedDueSubscriptions } from '../helpers/seed-renewals.js';
import { client, createMerchant, startServe, type Served, type TestMerchant } from '../helpers/serve.js';

/**
 * Several paygate processes on ONE PostgreSQL database: every rule holds whichever process
 * answers. Two real `serve` instances share the requests; four real `renew` processes, run from
 * separate working directories (two "hosts"), share the due renewals.
 */

const START = Date.UTC(2026, 0, 15, 9, 0, 0);
const DUE = Date.UTC(2026, 1, 15, 9, 0, 0);
const AT = '2026-02-15 10:00:00';
const AFTER_LEASE = '2026-02-15 10:11:00';

async function count(url: string, sql: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return Number((await c.query<{ n: string | number }>(sql)).rows[0]?.n ?? 0);
  } finally {
    await c.end();
  }
}

const card = () =>
  JSON.stringify({
    holderName: 'Ada',
    cardNumber: '4242424242424242',
    month: '12',
    year: String(new Date().getUTCFullYear() + 2),
    cvv: '123',
  });

describe.skipIf(!pgAvailable())('two serve instances on one PostgreSQL database', () => {
  let db: PgTestDatabase;
  let a: Served;
  let b: Served;
  beforeAll(async () => {
    db = await createPgDatabase();
    // The first opens (and migrates) the database; the second starts on it at the same time.
    [a, b] = await Promise.all([
      startServe({ dbPath: db.url, env: { PAYGATE_DB_POOL: '5' } }),
      startServe({ dbPath: db.url, env: { PAYGATE_DB_POOL: '5' } }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  const both = (i: number): Served => (i % 2 === 0 ? a : b);

  it('20 concurrent duplicate PAYs split between them make one transaction and one charge', async () => {
    const m: TestMerchant = createMerchant(db.url, 2, 'Dup Shop');
    const body = {
      requestId: 'dup-1',
      relationId: 'order-dup-1',
      paymentType: 'PAY',
      payAmount: '10.00',
      currency: 'USD',
      cardInfo: card(),
    };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client(both(i).url, m).post(`/payment/${m.apiKey}/transaction`, body)),
    );
    for (const r of answers) expect(r.body.rtn_code, r.text).toBe('0000');
    expect(new Set(answers.map((r) => r.body.data.transactionOrderId)).size).toBe(1);
    expect(await count(db.url, `SELECT count(*) AS n FROM transactions WHERE merchant_id = '${m.merchantId}'`)).toBe(1);
    expect(await count(db.url, "SELECT count(*) AS n FROM sandbox_charges WHERE kind = 'charge'")).toBe(1);
  });

  it('50 concurrent PAYs split between them are invoiced INV-000001 to INV-000050, each number once', async () => {
    const m: TestMerchant = createMerchant(db.url, 2, 'Invoice Shop');
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        client(both(i).url, m).post(`/payment/${m.apiKey}/transaction`, {
          requestId: `inv-${i}`,
          relationId: `order-inv-${i}`,
          paymentType: 'PAY',
          payAmount: '2.00',
          currency: 'USD',
          cardInfo: card(),
        }),
      ),
    );
    for (const r of answers) expect(r.body.data?.status, r.text).toBe('200000');
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const rows = await c.query<{ number: string }>('SELECT number FROM invoices WHERE merchant_id = $1', [
        m.merchantId,
      ]);
      expect(rows.rows.map((r) => r.number).sort()).toEqual(
        Array.from({ length: 50 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`),
      );
    } finally {
      await c.end();
    }
  });

  it('10 concurrent 3.00 refunds of a 10.00 transaction split between them: exactly 3 succeed', async () => {
    const m: TestMerchant = createMerchant(db.url, 2, 'Refund Shop');
    const paid = await client(a.url, m).post(`/payment/${m.apiKey}/transaction`, {
      requestId: 'rf-pay',
      relationId: 'order-rf',
      paymentType: 'PAY',
      payAmount: '10.00',
      currency: 'USD',
      cardInfo: card(),
    });
    expect(paid.body.data.status).toBe('200000');
    const id = paid.body.data.transactionOrderId as string;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        client(both(i).url, m).post(`/payment/${m.apiKey}/refund`, {
          transactionOrderId: id,
          refundAmount: '3.00',
          requestId: `rf-${i}`,
        }),
      ),
    );
    const ok = answers.filter((r) => r.body.rtn_code === '0000');
    expect(ok).toHaveLength(3);
    // Every other one is refused as over the refundable amount (1010), none with an internal error.
    expect(answers.filter((r) => r.body.rtn_code !== '0000').map((r) => r.body.rtn_code)).toEqual(
      Array(7).fill('1010'),
    );
    expect(await count(db.url, `SELECT refunded_amount AS n FROM transactions WHERE id = '${id}'`)).toBe(900);
    expect(await count(db.url, `SELECT refund_reserved AS n FROM transactions WHERE id = '${id}'`)).toBe(0);
  });

  // Each instance keeps the merchant's row in memory for at most half a second (MERCHANT_FRESH_MS).
  const afterFreshness = () => new Promise((r) => setTimeout(r, 1000));
  const payOn = (s: Served, m: TestMerchant, id: string) =>
    client(s.url, m).post(`/payment/${m.apiKey}/transaction`, {
      requestId: id,
      relationId: `order-${id}`,
      paymentType: 'PAY',
      payAmount: '1.00',
      currency: 'USD',
      cardInfo: card(),
    });

  it('a merchant disabled on another process is refused (1003) by every instance within one second', async () => {
    const m: TestMerchant = createMerchant(db.url, 2, 'Stopping Shop');
    // Both instances hold the merchant in memory now.
    for (const [i, s] of [a, b].entries()) expect((await payOn(s, m, `before-${i}`)).body.rtn_code).toBe('0000');
    expect(paygate(['--db', db.url, 'merchant', 'update', m.merchantId, '--disable']).status).toBe(0);
    await afterFreshness();
    for (const [i, s] of [a, b].entries()) expect((await payOn(s, m, `after-${i}`)).body.rtn_code).toBe('1003');
  });

  it('a secret rotated on another process signs requests on every instance within one second', async () => {
    const m: TestMerchant = createMerchant(db.url, 2, 'Rotating Shop');
    for (const [i, s] of [a, b].entries()) expect((await payOn(s, m, `old-${i}`)).body.rtn_code).toBe('0000');
    const rotated = paygate(['--db', db.url, 'merchant', 'rotate-secret', m.merchantId]).json();
    await afterFreshness();
    const renewed = { ...m, secret: rotated.secret as string };
    for (const [i, s] of [a, b].entries()) expect((await payOn(s, renewed, `new-${i}`)).body.rtn_code).toBe('0000');
  });

  it("a merchant's 61st transaction request within a minute is refused (429, 1004) whichever instance gets it", async () => {
    const m: TestMerchant = createMerchant(db.url, 2, 'Busy Shop');
    const pay = (i: number) =>
      client(both(i).url, m).post(`/payment/${m.apiKey}/transaction`, {
        requestId: `rl-${i}`,
        relationId: `order-rl-${i}`,
        paymentType: 'PAY',
        payAmount: '1.00',
        currency: 'USD',
        cardInfo: card(),
      });
    const first = await Promise.all(Array.from({ length: 60 }, (_, i) => pay(i)));
    expect(first.map((r) => r.status)).toEqual(Array(60).fill(200));
    // 30 went to each instance: an in-memory budget per instance would still let both answer.
    for (const i of [60, 61]) {
      const r = await pay(i);
      expect(r.status).toBe(429);
      expect(r.body.rtn_code).toBe('1004');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });
});

interface Proc {
  kill: (signal: NodeJS.Signals) => void;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

function renew(url: string, at: string, cwd: string): Proc {
  const child = spawn(process.execPath, [BIN, '--db', url, 'renew', '--at', at, '--json'], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PAYGATE_VAULT_KEY: TEST_VAULT_KEY, PAYGATE_DB_POOL: '4' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { kill: (s) => child.kill(s), done };
}

async function ledger(url: string) {
  return {
    charges: await count(url, "SELECT count(*) AS n FROM sandbox_charges WHERE kind = 'charge'"),
    distinctKeys: await count(
      url,
      "SELECT count(DISTINCT idempotency_key) AS n FROM sandbox_charges WHERE kind = 'charge'",
    ),
    success: await count(
      url,
      "SELECT count(*) AS n FROM billing_records WHERE billing_type = 'RENEW' AND status = 'SUCCESS'",
    ),
    pending: await count(
      url,
      `SELECT count(*) AS n FROM billing_records WHERE status = 'PENDING' AND scheduled_time <= ${DUE}`,
    ),
    renewalTxns: await count(url, "SELECT count(*) AS n FROM transactions WHERE payment_type = 'RENEWAL'"),
    events: await count(url, "SELECT count(*) AS n FROM outbox_events WHERE event_type = 'RENEW_SUCCEEDED'"),
  };
}

describe.skipIf(!pgAvailable())('paygate renew on PostgreSQL under concurrency', () => {
  let db: PgTestDatabase | undefined;
  let cleanup: (() => void) | undefined;
  afterEach(async () => {
    await db?.drop();
    cleanup?.();
  });

  /** Two "hosts": separate working directories, nothing shared but the database. */
  function hosts(): [string, string] {
    const t = tempDir('paygate-pg-renew-');
    cleanup = t.cleanup;
    const dirs = [join(t.dir, 'host-a'), join(t.dir, 'host-b')] as [string, string];
    for (const d of dirs) mkdirSync(d);
    return dirs;
  }

  it('four renew processes on two hosts over 5,000 due subscriptions charge exactly 5,000 times', async () => {
    db = await createPgDatabase();
    const [hostA, hostB] = hosts();
    await seedDueSubscriptions(hostA, 5000, { startedAt: START, dueAt: DUE, db: db.url });
    const { url } = db;
    const procs = [hostA, hostA, hostB, hostB].map((cwd) => renew(url, AT, cwd));
    const results = await Promise.all(procs.map((p) => p.done));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const summaries = results.map((r) => JSON.parse(r.stdout) as { due: number; succeeded: number });
    expect(summaries.reduce((n, s) => n + s.succeeded, 0)).toBe(5000);
    expect(await ledger(db.url)).toEqual({
      charges: 5000,
      distinctKeys: 5000,
      success: 5000,
      pending: 0,
      renewalTxns: 5000,
      events: 5000,
    });
    // One merchant's 5,000 renewals, issued by four processes at once: numbered 1–5,000 without a gap.
    expect(await count(db.url, 'SELECT count(DISTINCT number) AS n FROM invoices')).toBe(5000);
    expect(
      await count(db.url, "SELECT count(*) AS n FROM invoices WHERE number BETWEEN 'INV-000001' AND 'INV-005000'"),
    ).toBe(5000);
  }, 240_000);

  it('a renew killed with SIGKILL mid-way, rerun after the lease: every record charged once, none lost', async () => {
    db = await createPgDatabase();
    const [hostA, hostB] = hosts();
    const N = 5000;
    await seedDueSubscriptions(hostA, N, { startedAt: START, dueAt: DUE, db: db.url });
    const first = renew(db.url, AT, hostA);
    let seen = 0;
    for (let i = 0; i < 3000 && seen === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
      seen = await count(db.url, "SELECT count(*) AS n FROM sandbox_charges WHERE kind = 'charge'");
    }
    first.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const mid = await ledger(db.url);
    expect(mid.charges).toBeGreaterThan(0);
    expect(mid.success).toBeLessThan(N);
    // A rerun within the lease leaves the killed run's claims alone…
    const within = await renew(db.url, AT, hostB).done;
    expect(within.code, within.stderr).toBe(0);
    // …and one past it takes them over and completes them through the channel's idempotency.
    const rerun = await renew(db.url, AFTER_LEASE, hostB).done;
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(await ledger(db.url)).toEqual({
      charges: N,
      distinctKeys: N,
      success: N,
      pending: 0,
      renewalTxns: N,
      events: N,
    });
  }, 240_000);
});

/**
 * No transaction waits for a key while it holds a merchant's row (src/store/postgres/pay.ts): one
 * merchant's PAYs queued in a process commit as one batch, which writes every key before it takes
 * the row for the first invoice number. Otherwise a batch holding the row could wait for a key a
 * duplicate on the other instance holds, while that duplicate waits for the row: PostgreSQL would
 * break the deadlock after a second by failing one.
 * Counted by the server (pg_stat_database.deadlocks, flushed when the instances' backends exit).
 */
describe.skipIf(!pgAvailable())('duplicates amid one merchant’s paid PAYs on two instances', () => {
  it('end with one transaction, charge and invoice per requestId, and no deadlock', async () => {
    const db = await createPgDatabase();
    const started = await Promise.all(
      [0, 1].map(() => startServe({ dbPath: db.url, args: ['--no-rate-limit'], env: { PAYGATE_DB_POOL: '5' } })),
    );
    const [a, b] = started as [Served, Served];
    try {
      const deadlocks = () =>
        count(db.url, 'SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()');
      const before = await deadlocks();
      const m: TestMerchant = createMerchant(db.url, 2, 'Busy Shop');
      const ids: string[] = [];
      for (let round = 0; round < 8; round++) {
        // One instance takes a stream of its own PAYs (so they commit in batches holding the
        // merchant's row) with 5 requestIds among them; the other takes only those 5 again, so
        // each of its copies is written alone, while a batch of the first may be running.
        const own = Array.from({ length: 40 }, (_, i) =>
          i % 8 === 7 ? `dup-${round}-${i >> 3}` : `own-${round}-${i}`,
        );
        const sent: Array<[Served, string]> = [
          ...own.map((id): [Served, string] => [a, id]),
          ...own.filter((id) => id.startsWith('dup')).map((id): [Served, string] => [b, id]),
        ];
        ids.push(...own);
        const answers = await Promise.all(
          sent.map(([srv, requestId]) =>
            client(srv.url, m).post(`/payment/${m.apiKey}/transaction`, {
              requestId,
              relationId: `order-${requestId}`,
              paymentType: 'PAY',
              payAmount: '3.00',
              currency: 'USD',
              cardInfo: card(),
            }),
          ),
        );
        for (const r of answers) expect(r.body.data?.status, r.text).toBe('200000');
      }
      await Promise.all([a.stop(), b.stop()]);
      expect(await count(db.url, 'SELECT count(*) AS n FROM transactions')).toBe(ids.length);
      expect(await count(db.url, "SELECT count(*) AS n FROM sandbox_charges WHERE kind = 'charge'")).toBe(ids.length);
      expect(await count(db.url, 'SELECT count(DISTINCT number) AS n FROM invoices')).toBe(ids.length);
      expect((await deadlocks()) - before).toBe(0);
    } finally {
      await Promise.all(started.map((s) => s.stop()));
      await db.drop();
    }
  }, 60_000);
});
