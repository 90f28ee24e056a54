import { existsSync, readlinkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE, tempDir } from '../helpers/env.js';
import { paygate } from '../helpers/cli.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { rowsOf, shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';

/** A temp dir of the file's own: SQLite paths that are not shop databases (a missing directory, a backup). */
let dir: string;
let cleanup: () => void;
/** Every database the tests made (SQLite files or PostgreSQL databases), dropped after the file. */
const made: ShopDatabase[] = [];
async function fresh(copy?: ShopDatabase): Promise<ShopDatabase> {
  const d = await shopDatabase({ prefix: 'paygate-cli-', copyOf: copy });
  made.push(d);
  return d;
}
/** A fresh database per test, on the engine under test. */
const freshDb = async () => (await fresh()).db;
/**
 * A copy of a database made once by `commands` (each made by the real CLI, then copied per test so
 * that a test starts from it without spawning the commands again).
 */
const templates = new Map<string, Promise<ShopDatabase>>();
async function copyOf(...commands: string[][]): Promise<string> {
  const key = commands.map((args) => args.join('\0')).join('\n');
  let template = templates.get(key);
  if (!template) {
    template = fresh().then((t) => {
      for (const args of commands) {
        const r = paygate(['--db', t.db, ...args]);
        if (r.status !== 0) throw new Error(r.stderr);
      }
      return t;
    });
    templates.set(key, template);
  }
  return (await fresh(await template)).db;
}
/** A database that already exists (so the one-line "created a new database" note is not part of the output). */
const emptyDb = () => copyOf(['merchant', 'list']);

beforeAll(() => ({ dir, cleanup } = tempDir('paygate-cli-')));
afterAll(async () => {
  await Promise.all(made.map((d) => d.drop()));
  cleanup();
});

/**
 * Input refused before anything is read or written (checked values, usage errors, a SQLite path's
 * directory): the same code on either engine, so these run once, on SQLite.
 */
const refusedBeforeWriting = it.runIf(TEST_ENGINE === 'sqlite');

async function counts(db: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of ['merchants', 'plans']) out[t] = await rowsOf(db).count(t);
  return out;
}

describe('paygate merchant', () => {
  it('create --json prints the SPEC shape with the secret and key once', async () => {
    const db = await freshDb();
    const r = paygate(['--db', db, 'merchant', 'create', '--name', 'Shop', '--json']);
    expect(r.status).toBe(0);
    const m = r.json();
    expect(Object.keys(m).sort()).toEqual(['apiKey', 'merchantId', 'name', 'secret', 'signatureVersion']);
    expect(m.merchantId).toMatch(/^mer_/);
    expect(m.name).toBe('Shop');
    expect(m.signatureVersion).toBe(2);
  });

  it('create with a notify URL and version 1 includes them', async () => {
    const r = paygate([
      '--db',
      await freshDb(),
      'merchant',
      'create',
      '--name',
      'Shop',
      '--signature-version',
      '1',
      '--notify-url',
      'https://shop.example/n',
    ]);
    expect(r.json()).toMatchObject({ signatureVersion: 1, notifyUrl: 'https://shop.example/n' });
  });

  it('list and show mask the key and secret; the secret is stored encrypted', async () => {
    const started = new Date(Date.now() - 1000);
    const db = await freshDb();
    const created = paygate(['--db', db, 'merchant', 'create', '--name', 'Shop']).json();
    const list = paygate(['--db', db, 'merchant', 'list']);
    expect(list.stdout).not.toContain(created.secret);
    expect(list.stdout).not.toContain(created.apiKey);
    const shown = paygate(['--db', db, 'merchant', 'show', created.merchantId]).json();
    expect(shown.secret).toBe('********');
    expect(shown.status).toBe('ACTIVE');
    // Every byte the engine keeps for the database (SQLite: the file and its WAL; PostgreSQL: its
    // table and index files and the WAL written since the test started).
    const raw = (await rowsOf(db).rawFiles(started)).map((f) => f.bytes.toString('latin1')).join('');
    expect(raw).toContain(created.merchantId);
    expect(raw).not.toContain(created.secret);
  });

  it('update disables, enables and changes the notify URL', async () => {
    const db = await freshDb();
    const { merchantId } = paygate(['--db', db, 'merchant', 'create', '--name', 'Shop']).json();
    expect(paygate(['--db', db, 'merchant', 'update', merchantId, '--disable']).json().status).toBe('DISABLED');
    const updated = paygate([
      '--db',
      db,
      'merchant',
      'update',
      merchantId,
      '--enable',
      '--notify-url',
      'http://localhost:9/x',
    ]).json();
    expect(updated).toMatchObject({ status: 'ACTIVE', notifyUrl: 'http://localhost:9/x' });
  });

  it('update sets what invoices and customer emails show, and show shows it', async () => {
    const db = await freshDb();
    const { merchantId } = paygate(['--db', db, 'merchant', 'create', '--name', 'Shop']).json();
    const r = paygate([
      '--db',
      db,
      'merchant',
      'update',
      merchantId,
      '--legal-name',
      'Shop Ltd',
      '--address',
      '1 Main St\nSpringfield',
      '--tax-id',
      'GB123',
      '--support-email',
      'help@shop.test',
      '--email-from',
      'billing@shop.test',
      '--invoice-prefix',
      'SHOP-26',
      '--invoice-next',
      '1042',
      '--credit-note-next',
      '7',
      '--customer-emails',
      'off',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(paygate(['--db', db, 'merchant', 'show', merchantId]).json()).toMatchObject({
      legalName: 'Shop Ltd',
      address: '1 Main St\nSpringfield',
      taxId: 'GB123',
      supportEmail: 'help@shop.test',
      emailFrom: 'billing@shop.test',
      invoicePrefix: 'SHOP-26',
      invoiceNext: 1042,
      creditNoteNext: 7,
      customerEmails: 'off',
    });
    const back = paygate(['--db', db, 'merchant', 'update', merchantId, '--invoice-next', '5']);
    expect(back.status).toBe(1);
    expect(back.stderr.trim()).toMatch(/^error 1001: invoiceNext: must be at least 1042/);
    expect(back.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('update refuses an invoice prefix ending in -CN (its invoices would take credit note numbers), nothing changed', async () => {
    const db = await freshDb();
    const { merchantId } = paygate(['--db', db, 'merchant', 'create', '--name', 'Shop']).json();
    const r = paygate([
      '--db',
      db,
      'merchant',
      'update',
      merchantId,
      '--invoice-prefix',
      'INV-CN',
      '--invoice-next',
      '5',
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toMatch(/^error 1001: invoicePrefix: must not end in "-CN"/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(paygate(['--db', db, 'merchant', 'show', merchantId]).json()).toMatchObject({
      invoicePrefix: 'INV',
      invoiceNext: 1,
    });
  });

  it('rotate-secret prints a new secret once', async () => {
    const db = await freshDb();
    const created = paygate(['--db', db, 'merchant', 'create', '--name', 'Shop']).json();
    const rotated = paygate(['--db', db, 'merchant', 'rotate-secret', created.merchantId]).json();
    expect(rotated.secret).toMatch(/^sk_/);
    expect(rotated.secret).not.toBe(created.secret);
  });

  it('show of an unknown merchant is error 1007, exit 1', async () => {
    const r = paygate(['--db', await emptyDb(), 'merchant', 'show', 'mer_nope']);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe('error 1007: merchant not found');
  });

  refusedBeforeWriting.each([
    ['a 201-character name', ['--name', 'x'.repeat(201)], /name/],
    ['an ftp notify URL', ['--name', 'Shop', '--notify-url', 'ftp://x'], /notifyUrl/],
    ['signature version 3', ['--name', 'Shop', '--signature-version', '3'], /signatureVersion/],
  ])('create refuses %s with one line, exit 1, nothing written', async (_label, args, field) => {
    const db = await emptyDb();
    const r = paygate(['--db', db, 'merchant', 'create', ...args]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(field);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect((await counts(db)).merchants).toBe(0);
  });

  refusedBeforeWriting('a database path in a missing directory is a one-line start-up error (exit 2)', async () => {
    const r = paygate(['--db', join(dir, 'missing', 'x.db'), 'merchant', 'list']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error startup: database directory does not exist/);
  });

  refusedBeforeWriting('an unknown option is a usage error, exit 2', async () => {
    const r = paygate(['--db', await freshDb(), 'merchant', 'list', '--bogus']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error usage:/);
  });
});

describe('paygate plan', () => {
  const withMerchant = (): Promise<string> => copyOf(['merchant', 'create', '--name', 'Shop']);

  it('create prints the plan ACTIVE, --merchant left out with one merchant', async () => {
    const db = await withMerchant();
    const r = paygate([
      '--db',
      db,
      'plan',
      'create',
      '--name',
      'Gold',
      '--price',
      '9.99',
      '--currency',
      'USD',
      '--cycle-type',
      'MONTHLY',
      '--cycle-length',
      '1',
      '--json',
    ]);
    expect(r.status).toBe(0);
    const p = r.json();
    expect(p).toMatchObject({
      planName: 'Gold',
      price: '9.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
      trialDays: 0,
      maxSubscriptions: 0,
      currentSubscriptions: 0,
      status: 'ACTIVE',
    });
    expect(p.planId).toMatch(/^pln_/);
    expect(p.createTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  /** One merchant with plan A, then plan B, made by `plan create`. */
  const withTwoPlans = (): Promise<string> =>
    copyOf(
      ['merchant', 'create', '--name', 'Shop'],
      ['plan', 'create', '--name', 'A', '--price', '1.00', '--cycle-type', 'DAILY'],
      ['plan', 'create', '--name', 'B', '--price', '2.00', '--cycle-type', 'WEEKLY'],
    );
  const planIdOf = async (db: string, name: string): Promise<string> =>
    (await rowsOf(db).get<{ id: string }>('SELECT id FROM plans WHERE name = ?', name))?.id ?? '';

  it('list shows plans newest first and filters by status', async () => {
    const db = await withTwoPlans();
    const all = paygate(['--db', db, 'plan', 'list']).json() as { planId: string; planName: string }[];
    expect(all.map((p) => p.planName)).toEqual(['B', 'A']);
    await rowsOf(db).run("UPDATE plans SET status = 'INACTIVE' WHERE name = 'A'");
    const active = paygate(['--db', db, 'plan', 'list', '--status', 'ACTIVE']).json() as { planName: string }[];
    expect(active.map((p) => p.planName)).toEqual(['B']);
  });

  it('deactivate and activate flip status; deactivating an inactive plan is 1008', async () => {
    const db = await withTwoPlans();
    const a = await planIdOf(db, 'A');
    expect(paygate(['--db', db, 'plan', 'deactivate', a]).json().status).toBe('INACTIVE');
    const again = paygate(['--db', db, 'plan', 'deactivate', a]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/^error 1008/);
    expect(paygate(['--db', db, 'plan', 'activate', a]).json().status).toBe('ACTIVE');
  });

  refusedBeforeWriting(
    'without a terminal, missing required values are a usage error naming them (no prompt)',
    async () => {
      const db = await withMerchant();
      const r = paygate(['--db', db, 'plan', 'create', '--name', 'Gold']);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/--price/);
      expect(r.stderr).toMatch(/--cycle-type/);
      expect((await counts(db)).plans).toBe(0);
    },
  );

  refusedBeforeWriting.each([
    [['--price', '9.999', '--cycle-type', 'MONTHLY'], /price/],
    [['--price', '-1', '--cycle-type', 'MONTHLY'], /price/],
    [['--price', '1e3', '--cycle-type', 'MONTHLY'], /price/],
    [['--price', '9.99', '--cycle-type', 'HOURLY'], /cycleType/],
    [['--price', '9.99', '--cycle-type', 'MONTHLY', '--currency', 'EUR'], /currency/],
    [['--price', '9.99', '--cycle-type', 'MONTHLY', '--cycle-length', '13'], /cycleLength/],
    [['--price', '9.99', '--cycle-type', 'YEARLY', '--cycle-length', '2'], /cycleLength/],
    [['--price', '9.99', '--cycle-type', 'DAILY', '--cycle-length', '0'], /cycleLength/],
    [['--price', '9.99', '--cycle-type', 'MONTHLY', '--trial-days', '-1'], /trialDays/],
    [['--price', '0', '--cycle-type', 'MONTHLY'], /price/],
    [['--price', '9.99', '--cycle-type', 'MONTHLY', '--max-subscriptions', 'many'], /maxSubscriptions/],
  ])('create refuses %j naming the field, exit 1, database unchanged', async (args, field) => {
    const db = await withMerchant();
    const r = paygate(['--db', db, 'plan', 'create', '--name', 'Gold', ...args]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error 1001: /);
    expect(r.stderr).toMatch(field);
    expect((await counts(db)).plans).toBe(0);
  });

  refusedBeforeWriting('refuses a description over 500 characters', async () => {
    const db = await withMerchant();
    const r = paygate([
      '--db',
      db,
      'plan',
      'create',
      '--name',
      'Gold',
      '--price',
      '1.00',
      '--cycle-type',
      'DAILY',
      '--description',
      'd'.repeat(501),
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/description/);
    expect((await counts(db)).plans).toBe(0);
  });

  refusedBeforeWriting('refuses a too-long name', async () => {
    const db = await withMerchant();
    const r = paygate([
      '--db',
      db,
      'plan',
      'create',
      '--name',
      'n'.repeat(201),
      '--price',
      '1.00',
      '--cycle-type',
      'DAILY',
    ]);
    expect(r.stderr).toMatch(/planName/);
    expect((await counts(db)).plans).toBe(0);
  });

  it('a zero price is allowed with a trial', async () => {
    const db = await withMerchant();
    const r = paygate([
      '--db',
      db,
      'plan',
      'create',
      '--name',
      'Free',
      '--price',
      '0',
      '--cycle-type',
      'MONTHLY',
      '--trial-days',
      '14',
    ]);
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ price: '0.00', trialDays: 14 });
  });

  it('off a terminal, plan create needs --merchant when several merchants exist', async () => {
    const db = await withMerchant();
    paygate(['--db', db, 'merchant', 'create', '--name', 'Other']);
    const r = paygate(['--db', db, 'plan', 'create', '--name', 'A', '--price', '1.00', '--cycle-type', 'DAILY']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/--merchant is required/);
  });

  it('show of another merchant’s plan is 1007 like an unknown one', async () => {
    const db = await withMerchant();
    const p = paygate(['--db', db, 'plan', 'create', '--name', 'A', '--price', '1.00', '--cycle-type', 'DAILY']).json();
    const other = paygate(['--db', db, 'merchant', 'create', '--name', 'Other']).json();
    const r = paygate(['--db', db, 'plan', 'show', p.planId, '--merchant', other.merchantId]);
    expect(r.stderr.trim()).toBe('error 1007: plan not found');
  });
});

// db backup copies SQLite files; on PostgreSQL it refuses and names pg_dump and db copy instead.
describe.skipIf(TEST_ENGINE === 'postgres')('paygate db backup', () => {
  it('copies the database with the online backup', async () => {
    const db = await freshDb();
    paygate(['--db', db, 'merchant', 'create', '--name', 'Shop']);
    const target = join(dir, 'backup.db');
    const r = paygate(['--db', db, 'db', 'backup', target]);
    expect(r.status).toBe(0);
    expect((await counts(target)).merchants).toBe(1);
  });

  it('refuses to overwrite an existing file', async () => {
    const db = await freshDb();
    paygate(['--db', db, 'merchant', 'list']);
    const r = paygate(['--db', db, 'db', 'backup', db]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/already exists/);
  });

  it('refuses a symbolic link to a missing file like an existing file (1001 naming file), writing nothing through it', async () => {
    const db = await freshDb();
    paygate(['--db', db, 'merchant', 'list']);
    const link = join(dir, 'dangling-backup.db');
    const nowhere = join(dir, 'nowhere.db');
    symlinkSync(nowhere, link);
    const r = paygate(['--db', db, 'db', 'backup', link]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`error 1001: file: ${link} already exists (a symbolic link to a file that does not exist)\n`);
    expect(readlinkSync(link)).toBe(nowhere);
    expect(existsSync(nowhere)).toBe(false);
  });

  it('the store refuses such a link too, with 1001 naming file (a link made after the command checked)', async () => {
    const t = tempDir('paygate-backup-');
    const store = openSqliteStore(join(t.dir, 'shop.db'));
    try {
      const link = join(t.dir, 'late.db');
      symlinkSync(join(t.dir, 'nowhere.db'), link);
      await expect(store.backup(link)).rejects.toMatchObject({
        code: '1001',
        field: 'file',
        message: `file: ${link} already exists`,
      });
      expect(existsSync(join(t.dir, 'nowhere.db'))).toBe(false);
    } finally {
      await store.close();
      t.cleanup();
    }
  });
});
