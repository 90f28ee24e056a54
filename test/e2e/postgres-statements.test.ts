import { spawn } from 'node:child_process';
import { openSync, readSync, closeSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { cardYear } from '../helpers/cards.js';
import { tempDir, TEST_VAULT_KEY } from '../helpers/env.js';
import { createPgDatabase, pgAvailable, pgClusterUrl, type PgTestDatabase } from '../helpers/postgres.js';
import { seedDueSubscriptions } from '../helpers/seed-renewals.js';
import { startSmtp } from '../helpers/smtp.js';
import { client, createMerchant, startServe, type Served, type TestMerchant } from '../helpers/serve.js';

/**
 * How many statements a PAY and a renewal cost PostgreSQL, counted in the server's own log: this
 * database alone logs every statement (`log_statement = 'all'`, set on the database before any
 * paygate connection opens, so no other test database's statements appear), and the run's cluster
 * writes its log to server.log beside its data directory (test/helpers/postgres-cluster.ts).
 * So the round trips a PAY costs cannot creep back unnoticed.
 */

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: pgClusterUrl() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The server log, read from a position on. */
class ServerLog {
  private constructor(private readonly file: string) {}

  static async open(): Promise<ServerLog> {
    const data = await admin(
      async (c) => (await c.query<{ d: string }>('SELECT current_setting($1) AS d', ['data_directory'])).rows[0]?.d,
    );
    if (!data) throw new Error('no data_directory');
    return new ServerLog(join(dirname(data), 'server.log'));
  }

  end(): number {
    return statSync(this.file).size;
  }

  /**
   * The statements logged since `from`, as [backend pid, text]: one per `statement:` /
   * `execute …:` entry, and each of several in one simple query ("BEGIN; SELECT …") on its own.
   */
  statementsSince(from: number): Array<[string, string]> {
    const size = this.end() - from;
    const buf = Buffer.alloc(size);
    const fd = openSync(this.file, 'r');
    try {
      readSync(fd, buf, 0, size, from);
    } finally {
      closeSync(fd);
    }
    const out: Array<[string, string]> = [];
    // A statement written over several lines continues on lines without the log line's prefix.
    const entries = buf.toString('utf8').split(/\n(?=\d{4}-\d\d-\d\d )/);
    for (const line of entries.map((e) => e.replace(/\n\s*/g, ' '))) {
      // The cluster's default log_line_prefix, '%m [%p] ': the backend's pid in brackets.
      const m = /\[(\d+)\] LOG:\s+(statement|execute [^:]*): (.*)$/.exec(line);
      if (!m?.[1] || !m[3]) continue;
      const pid = m[1];
      const texts = m[2] === 'statement' ? m[3].split(';').map((x) => x.trim()) : [m[3]];
      for (const text of texts.filter(Boolean)) out.push([pid, text]);
    }
    return out;
  }
}

/**
 * What `serve` runs on its own while a PAY is answered (its callback delivery loop polls every
 * second; the rate limits' sweep): units of work that touch none of a PAY's tables, and the
 * delivery loop's autocommit check. What remains is the PAY's.
 */
const PAY_TABLES = /\b(transactions|idempotency_keys|sandbox_charges|rate_limit_windows)\b/;
const BACKGROUND = /^(SELECT 1 FROM merchants WHERE notify_url IS NULL|DELETE FROM rate_limit_windows)/;

function payStatements(all: Array<[string, string]>): string[] {
  const units = new Map<string, string[]>();
  const out: string[] = [];
  for (const [pid, text] of all) {
    const open = units.get(pid);
    if (/^BEGIN/i.test(text)) units.set(pid, [text]);
    else if (open) {
      open.push(text);
      if (!/^(COMMIT|ROLLBACK)/i.test(text)) continue;
      units.delete(pid);
      if (open.some((t) => PAY_TABLES.test(t))) out.push(...open);
    } else if (!BACKGROUND.test(text)) out.push(text);
  }
  return out;
}

const card = (cardNumber = '4242424242424242') =>
  JSON.stringify({ holderName: 'Ada', cardNumber, month: '12', year: cardYear(), cvv: '123' });

/** A PAY answered, and everything it wrote, before the log is read: the statement lines are in. */
describe.skipIf(!pgAvailable())('statements per PAY and per renewal on PostgreSQL', () => {
  let db: PgTestDatabase;
  let log: ServerLog;
  let served: Served;
  let m: TestMerchant;
  let mailing: TestMerchant;
  beforeAll(async () => {
    db = await createPgDatabase();
    await admin((c) => c.query(`ALTER DATABASE ${db.name} SET log_statement = 'all'`));
    log = await ServerLog.open();
    m = createMerchant(db.url, 2, 'Counted Shop');
    mailing = createMerchant(db.url, 2, 'Mailing Shop');
    served = await startServe({ dbPath: db.url, env: { PAYGATE_DB_POOL: '2' } });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    await db?.drop();
  });

  const query = async <R extends pg.QueryResultRow>(sql: string, args: unknown[]): Promise<R[]> => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query<R>(sql, args)).rows;
    } finally {
      await c.end();
    }
  };

  const pay = (i: number, cardNumber?: string, shop = m, extra: Record<string, string> = {}, url = served.url) =>
    client(url, shop).post(`/payment/${shop.apiKey}/transaction`, {
      requestId: `count-${i}`,
      relationId: `order-count-${i}`,
      paymentType: 'PAY',
      payAmount: '10.00',
      currency: 'USD',
      cardInfo: card(cardNumber),
      ...extra,
    });

  it('a sandbox PAY (approved with its invoice, or declined) is two statements, the rate limit included', async () => {
    // The first PAY warms the instance (its merchant read, each connection's prepared statements).
    expect((await pay(0)).body.data.status).toBe('200000');
    for (const [i, number, status] of [
      [1, '4242424242424242', '200000'],
      [2, '4000000000000002', '300000'],
    ] as const) {
      const from = log.end();
      const r = await pay(i, number);
      expect(r.body.data.status).toBe(status);
      const statements = payStatements(log.statementsSince(from));
      expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(2);
      expect(
        statements.some((s) => /^BEGIN/i.test(s)),
        statements.join('\n'),
      ).toBe(false);
    }
  });

  // A batch's outcomes share their statements (postgres/coalesce.ts): each step — the ledger
  // entries, the records settled, the transactions, the subscriptions read and counted, the next
  // records, the invoices with their numbers, the events — is one multi-row statement for the
  // batch, not one per renewal; the claim and the read of what it won are one statement. 77
  // statements for 500 measured on 2026-11-27 (two batches, the run's opening reads); 8.2 per
  // renewal before (4,100), 7.3 before invoices.
  it('a renewal is at most 0.2 statements, counted over a run of 500 due subscriptions', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const start = Date.UTC(2026, 0, 15, 9);
      await seedDueSubscriptions(dir, 500, { startedAt: start, dueAt: Date.UTC(2026, 1, 15, 9), db: db.url });
      // No callback URL anywhere: the events are not written and the run's delivery pass has nothing
      // to send, so what is counted is the renewals' own statements.
      const own = new pg.Client({ connectionString: db.url });
      await own.connect();
      await own.query('UPDATE merchants SET notify_url = NULL');
      await own.end();
      const from = log.end();
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [BIN, '--db', db.url, 'renew', '--at', '2026-02-15 10:00:00', '--json'], {
          cwd: dir,
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            PAYGATE_VAULT_KEY: TEST_VAULT_KEY,
            PAYGATE_DB_POOL: '2',
          },
          stdio: 'ignore',
        });
        child.on('exit', resolve);
      });
      expect(code).toBe(0);
      const statements = log.statementsSince(from);
      expect(statements.length / 500, `${statements.length} statements`).toBeLessThanOrEqual(0.2);
    } finally {
      cleanup();
    }
  }, 120_000);

  // Its own `serve`, with customer emails on, so the email loop's polling stays out of the counts above.
  it("a paid PAY's invoice, receipt and callback (naming the invoice's number) are written by its one statement", async () => {
    await query(
      `UPDATE merchants SET email_from = 'billing@shop.test', customer_emails = 'on', notify_url = 'http://127.0.0.1:9/cb'
       WHERE id = $1`,
      [mailing.merchantId],
    );
    const smtp = await startSmtp();
    const mailer = await startServe({ dbPath: db.url, env: { PAYGATE_DB_POOL: '2', PAYGATE_SMTP_URL: smtp.url } });
    try {
      const billingAddress = JSON.stringify({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' });
      const from = log.end();
      const r = await pay(100, undefined, mailing, { billingAddress }, mailer.url);
      expect(r.body.data.status).toBe('200000');
      const writes = log
        .statementsSince(from)
        .map(([, text]) => text)
        .filter((t) => /INSERT INTO (invoices|customer_emails|outbox_events)/.test(t));
      expect(writes, writes.join('\n')).toHaveLength(1);
      for (const table of ['sandbox_charges', 'invoices', 'customer_emails', 'outbox_events'])
        expect(writes[0]).toContain(`INSERT INTO ${table}`);
      const [row] = await query<{ number: string; dedupe_key: string; details: string; payload: string }>(
        `SELECT i.number, e.dedupe_key, e.details, o.payload FROM invoices i
         JOIN customer_emails e ON e.transaction_id = i.transaction_id AND e.kind = 'receipt'
         JOIN outbox_events o ON o.transaction_id = i.transaction_id
         WHERE i.transaction_id = $1`,
        [r.body.data.transactionOrderId],
      );
      expect(row?.number).toBe('INV-000001');
      expect(row?.dedupe_key).toBe(`receipt:${mailing.merchantId}:INV-000001`);
      expect(JSON.parse(row?.details ?? '{}')).toEqual({ invoiceNumber: 'INV-000001' });
      expect(JSON.parse(row?.payload ?? '{}')).toMatchObject({
        invoiceNumber: 'INV-000001',
        invoiceUrl: expect.stringMatching(/\/invoice\/[0-9A-HJKMNP-TV-Z]{10}[A-Za-z0-9_-]{32}$/),
      });
    } finally {
      await mailer.stop();
      await smtp.close();
    }
  }, 60_000);
});
