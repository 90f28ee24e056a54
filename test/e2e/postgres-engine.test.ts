import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { tempDir, TEST_VAULT_KEY } from '../helpers/env.js';
import { startCutProxy } from '../helpers/pg-cut-proxy.js';
import { createPgDatabase, pgAvailable, pgClusterUrl, type PgTestDatabase } from '../helpers/postgres.js';
import { client, createMerchant, startServe } from '../helpers/serve.js';
import { openApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { buildServer } from '../../src/http/server.js';

/** `--db postgres://…` / PAYGATE_DB: what the CLI and `serve` do on a PostgreSQL database. */

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function freshDb(): Promise<PgTestDatabase> {
  const db = await createPgDatabase();
  cleanups.push(() => db.drop());
  return db;
}

async function count(url: string, sql: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return Number((await c.query<{ n: string }>(sql)).rows[0]?.n ?? 0);
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

describe.skipIf(!pgAvailable())('paygate on a PostgreSQL database', () => {
  it('works from PAYGATE_DB as from --db: a merchant created by one command is listed by the next', async () => {
    const db = await freshDb();
    const created = paygate(['--json', 'merchant', 'create', '--name', 'PG Shop'], { env: { PAYGATE_DB: db.url } });
    expect(created.status, created.stderr).toBe(0);
    const listed = paygate(['--db', db.url, '--json', 'merchant', 'list']);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(created.json().merchantId);
    // No key file and no "created a new database" note: nothing is written beside a URL.
    expect(created.stderr).not.toContain('created a new database');
  });

  it('refuses to start without PAYGATE_VAULT_KEY, saying why, and writes nothing', async () => {
    const db = await freshDb();
    const r = paygate(['--db', db.url, 'merchant', 'list'], { env: { PAYGATE_VAULT_KEY: '' } });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/PostgreSQL database needs PAYGATE_VAULT_KEY/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(await count(db.url, "SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public'")).toBe(0);
  });

  // It said "…, or restore its <db>.key file beside it": no key file is ever used beside a URL.
  it('refuses another vault key in one line that names only PAYGATE_VAULT_KEY, no key file', async () => {
    const db = await freshDb();
    expect(paygate(['--db', db.url, 'merchant', 'create', '--name', 'Keyed Shop']).status).toBe(0);
    const other = Buffer.alloc(32, 9).toString('base64');
    const r = paygate(['--db', db.url, 'merchant', 'list'], { env: { PAYGATE_VAULT_KEY: other } });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'error startup: the vault key does not match this database (it was sealed under another key): set PAYGATE_VAULT_KEY to the key this database was created with (the same key on every instance that uses it)',
    ]);
  });

  it('refuses a malformed PAYGATE_VAULT_KEY in one line before creating any table', async () => {
    const db = await freshDb();
    const r = paygate(['--db', db.url, 'merchant', 'list'], { env: { PAYGATE_VAULT_KEY: 'abc' } });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'error startup: PAYGATE_VAULT_KEY must be base64 of exactly 32 bytes (make one with: paygate vault new-key)',
    ]);
    expect(await count(db.url, "SELECT count(*) AS n FROM pg_tables WHERE schemaname IN ('public', 'drizzle')")).toBe(
      0,
    );
  });

  it('refuses a PAYGATE_DB_POOL that is not a number of connections with 1001 naming it', async () => {
    const db = await freshDb();
    const r = paygate(['--db', db.url, 'merchant', 'list'], { env: { PAYGATE_DB_POOL: 'lots' } });
    // A setting a restart cannot fix: 2, as every start-up error.
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/error 1001: PAYGATE_DB_POOL: must be a whole number of connections/);
  });

  it('records the time zone of its first open and refuses another one later, as on SQLite', async () => {
    const db = await freshDb();
    expect(paygate(['--db', db.url, '--tz', 'Europe/Berlin', 'merchant', 'list']).status).toBe(0);
    expect(paygate(['--db', db.url, 'merchant', 'list']).status).toBe(0);
    const other = paygate(['--db', db.url, '--tz', 'UTC', 'merchant', 'list']);
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(/uses time zone Europe\/Berlin; it cannot be opened with UTC/);
  });

  it('db backup explains to use pg_dump or db copy, with 1001 and no file written', async () => {
    const db = await freshDb();
    const t = tempDir('paygate-pg-backup-');
    cleanups.push(t.cleanup);
    const r = paygate(['--db', db.url, 'db', 'backup', join(t.dir, 'copy.db')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error 1001: .*PostgreSQL.*pg_dump.*paygate db copy/);
  });

  it('serve names the database without its password', async () => {
    const db = await freshDb();
    const u = new URL(db.url);
    u.password = 'hunter2-secret';
    const srv = await startServe({ dbPath: u.toString() });
    cleanups.push(() => srv.stop());
    expect(srv.output()).toMatch(/database postgres:\/\/postgres:\*\*\*@/);
    expect(srv.output()).not.toContain('hunter2-secret');
  });

  it('a connection lost before a payment committed answers 9999 with nothing written; the repeat is charged once', async () => {
    const { db, m, proxy, base, body } = await cutShop();
    // A new sandbox PAY (its requestId, row, charge and outcome) is one statement that commits by itself.
    proxy.cutNextStatement('drop', 'INSERT INTO idempotency_keys');
    const lost = await client(base, m).post(`/payment/${m.apiKey}/transaction`, body);
    expect(lost.status).toBe(500);
    expect(lost.body.rtn_code).toBe('9999');
    expect(proxy.cuts).toBe(1);
    expect(await count(db.url, 'SELECT count(*) AS n FROM transactions')).toBe(0);
    expect(await count(db.url, 'SELECT count(*) AS n FROM idempotency_keys')).toBe(0);
    const again = await client(base, m).post(`/payment/${m.apiKey}/transaction`, body);
    expect(again.body.rtn_code, again.text).toBe('0000');
    expect(again.body.data.status).toBe('200000');
    expect(await count(db.url, "SELECT count(*) AS n FROM sandbox_charges WHERE kind = 'charge'")).toBe(1);
  });

  it('a payment written whole but its answer lost answers 9999; the repeat answers its result and charges nothing more', async () => {
    const { db, m, proxy, base, body } = await cutShop();
    // A new sandbox PAY is one statement: acceptance, charge, outcome, invoice and callback commit together.
    proxy.cutNextStatement('deliver', 'INSERT INTO idempotency_keys');
    const lost = await client(base, m).post(`/payment/${m.apiKey}/transaction`, body);
    expect(lost.status).toBe(500);
    expect(lost.body.rtn_code).toBe('9999');
    expect(proxy.cuts).toBe(1);
    // The server runs what it was sent to its commit after the connection died, on its own time:
    // the answer (9999) comes back as soon as the connection is cut.
    const paid = () => count(db.url, 'SELECT count(*) AS n FROM transactions WHERE status = 200000');
    for (let i = 0; i < 100 && (await paid()) === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await paid()).toBe(1);
    const again = await client(base, m).post(`/payment/${m.apiKey}/transaction`, body);
    expect(again.body.rtn_code, again.text).toBe('0000');
    expect(again.body.data.status).toBe('200000');
    expect(await count(db.url, "SELECT count(*) AS n FROM sandbox_charges WHERE kind = 'charge'")).toBe(1);
    expect(await count(db.url, 'SELECT count(*) AS n FROM invoices')).toBe(1);
  });
});

/**
 * A merchant on a fresh database reached through a cutting proxy, and the API in-process without
 * serve's background loops, so the next write through the proxy is the payment's.
 */
async function cutShop() {
  const db = await freshDb();
  const m = createMerchant(db.url, 2, 'Cut Shop');
  const proxy = await startCutProxy(db.url);
  cleanups.push(() => proxy.close());
  const ctx = await openApp(loadConfig({ db: proxy.url }, { PAYGATE_VAULT_KEY: TEST_VAULT_KEY }));
  cleanups.push(() => ctx.close());
  const app = await buildServer(ctx, { rateLimit: false });
  cleanups.push(() => app.close());
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const body = {
    requestId: 'cut-1',
    relationId: 'order-cut-1',
    paymentType: 'PAY',
    payAmount: '10.00',
    currency: 'USD',
    cardInfo: card(),
  };
  return { db, m, proxy, base, body };
}

/** The SQL of docs/postgres.md "Creating the role and the database", with its names made unique. */
function docsSetupSql(role: string): string {
  const text = readFileSync(new URL('../../docs/postgres.md', import.meta.url), 'utf8');
  const sql = /<<'SQL'\n([\s\S]*?)\nSQL\n/.exec(text)?.[1];
  if (!sql) throw new Error("docs/postgres.md: no <<'SQL' block");
  return sql.replaceAll(/\bpaygate\b/g, role);
}

/** One statement at a time: CREATE and DROP DATABASE refuse to run in a multi-statement query. */
async function asSuperuser(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: pgClusterUrl() });
  await c.connect();
  try {
    for (const statement of sql.split(';').filter((t) => t.trim() !== '')) await c.query(statement);
  } finally {
    await c.end();
  }
}

/** A role and database named `name` are dropped after the test (roles belong to the whole cluster). */
function dropAfter(name: string): void {
  cleanups.push(() => asSuperuser(`DROP DATABASE IF EXISTS ${name} WITH (FORCE); DROP ROLE IF EXISTS ${name}`));
}

function urlAs(role: string, password: string, database: string): string {
  const u = new URL(pgClusterUrl());
  u.username = role;
  u.password = password;
  u.pathname = `/${database}`;
  return u.toString();
}

describe.skipIf(!pgAvailable())('setting PostgreSQL up as docs/postgres.md says', () => {
  it('a role that owns its database, made by the documented SQL, can open it', async () => {
    const name = `shop_owner_${Date.now().toString(36)}`;
    dropAfter(name);
    await asSuperuser(docsSetupSql(name));
    const r = paygate(['--json', 'merchant', 'create', '--name', 'Owned Shop'], {
      env: { PAYGATE_DB: urlAs(name, 'choose-a-long-password', name) },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().name).toBe('Owned Shop');
  });

  it('a role granted ALL on a database it does not own is refused with the documented message', async () => {
    const name = `shop_guest_${Date.now().toString(36)}`;
    dropAfter(name);
    await asSuperuser(
      `CREATE ROLE ${name} LOGIN PASSWORD 'pw'; CREATE DATABASE ${name}; GRANT ALL ON DATABASE ${name} TO ${name}`,
    );
    const r = paygate(['merchant', 'list'], { env: { PAYGATE_DB: urlAs(name, 'pw', name) } });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(/^error startup: cannot open database .*: permission denied for schema public$/);
    expect(
      await count(urlAs('postgres', '', name), "SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public'"),
    ).toBe(0);
    await asSuperuser(`ALTER DATABASE ${name} OWNER TO ${name}`);
    const fixed = paygate(['merchant', 'list'], { env: { PAYGATE_DB: urlAs(name, 'pw', name) } });
    expect(fixed.status, fixed.stderr).toBe(0);
  });
});
