import { rowsOf } from '../helpers/rows.js';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransaction } from '../../src/services/transactions/index.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { createPlan } from '../../src/services/plans.js';
import { TEST_VAULT_KEY, CLOSED_NOTIFY_URL, testApp, testMerchant, type TestApp } from '../helpers/ctx.js';
import { cardYear } from '../helpers/cards.js';

/**
 * Separate OS processes on one database file: the guarantees must hold across processes, not
 * only inside one event loop. The children run the built code (dist/), as `serve` would.
 */
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const distUrl = (p: string) => pathToFileURL(join(DIST, p)).href;

let app: TestApp;
afterEach(async () => app?.close());

function childScript(dir: string): string {
  const file = join(dir, 'child.mjs');
  writeFileSync(
    file,
    `import { openApp } from '${distUrl('app.js')}';
import { loadConfig } from '${distUrl('config.js')}';
import { requireMerchant } from '${distUrl('services/merchants.js')}';
import { createTransaction } from '${distUrl('services/transactions/index.js')}';
import { refundTransaction } from '${distUrl('services/refund.js')}';
const [mode, db, merchantId, payload] = process.argv.slice(2);
const ctx = await openApp(loadConfig({ db }, process.env));
try {
  const m = await requireMerchant(ctx, merchantId);
  const input = JSON.parse(payload);
  const r = mode === 'pay' ? await createTransaction(ctx, m, input) : await refundTransaction(ctx, m, input);
  process.stdout.write(JSON.stringify({ ok: r }));
} catch (e) {
  process.stdout.write(JSON.stringify({ code: e.code ?? 'crash', message: String(e.message) }));
} finally {
  await ctx.close();
}
`,
  );
  return file;
}

function run(script: string, args: string[]): Promise<{ ok?: Record<string, string>; code?: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      env: { PATH: process.env.PATH, PAYGATE_VAULT_KEY: TEST_VAULT_KEY, PAYGATE_TZ: 'UTC' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', () => {
      try {
        resolve(JSON.parse(out));
      } catch {
        reject(new Error(`child failed: ${err}`));
      }
    });
  });
}

// Twenty Node processes each load the whole app (about half a CPU-second apiece): on two cores busy
// with the rest of the suite that alone passes the default 30 s.
const TWENTY_PROCESSES_MS = 120_000;

describe('across processes (needs the build: npm test runs it first)', () => {
  it(
    '20 processes sending one requestId at once charge exactly once',
    async () => {
      app = await testApp();
      const m = await requireMerchant(
        app.ctx,
        (await testMerchant(app.ctx, { notifyUrl: CLOSED_NOTIFY_URL })).merchantId,
      );
      const script = childScript(app.dir);
      const req = JSON.stringify({
        requestId: 'one',
        relationId: 'one',
        paymentType: 'PAY',
        payAmount: '10.00',
        currency: 'USD',
        cardInfo: JSON.stringify({ cardNumber: '4242424242424242', month: '12', year: cardYear(), cvv: '123' }),
      });
      const results = await Promise.all(Array.from({ length: 20 }, () => run(script, ['pay', app.dbPath, m.id, req])));
      expect(results.every((r) => r.ok)).toBe(true);
      expect(new Set(results.map((r) => r.ok?.transactionOrderId)).size).toBe(1);
      expect(results.every((r) => r.ok?.status === '200000' || r.ok?.status === '100000')).toBe(true);
      const n = async (sql: string) => ((await rowsOf(app.ctx).get(sql)) as { n: number }).n;
      expect(await n('SELECT count(*) AS n FROM sandbox_charges')).toBe(1);
      expect(await n('SELECT count(*) AS n FROM transactions')).toBe(1);
      expect(await n("SELECT count(*) AS n FROM outbox_events WHERE kind = 'PAYMENT'")).toBe(1);
    },
    TWENTY_PROCESSES_MS,
  );

  it(
    '20 processes refunding 0.75 each of 10.00 never refund more than was paid',
    async () => {
      app = await testApp();
      const m = await requireMerchant(app.ctx, (await testMerchant(app.ctx)).merchantId);
      const t = await createTransaction(app.ctx, m, {
        requestId: 'p',
        relationId: 'p',
        paymentType: 'PAY',
        payAmount: '10.00',
        currency: 'USD',
        cardInfo: JSON.stringify({ cardNumber: '4242424242424242', month: '12', year: cardYear(), cvv: '123' }),
      });
      const script = childScript(app.dir);
      const req = JSON.stringify({ transactionOrderId: t.transactionOrderId, refundAmount: '0.75' });
      const results = await Promise.all(
        Array.from({ length: 20 }, () => run(script, ['refund', app.dbPath, m.id, req])),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(13);
      expect(results.filter((r) => !r.ok).every((r) => r.code === '1010')).toBe(true);
      const row = await rowsOf(app.ctx).get(
        'SELECT refunded_amount AS r, refund_reserved AS s, status FROM transactions',
      );
      expect(row).toEqual({ r: 975, s: 0, status: 400010 });
    },
    TWENTY_PROCESSES_MS,
  );
});

describe('no card number in plain text anywhere in the database', () => {
  it('neither the db file nor its WAL holds a PAN used for PAY, 3DS, declines or a vaulted subscription card', async () => {
    app = await testApp();
    const ctx = app.ctx;
    const m = await requireMerchant(ctx, (await testMerchant(ctx)).merchantId);
    const p = await createPlan(ctx, m.id, {
      planName: 'P',
      price: '5.00',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    const pans = ['4242424242424242', '5555555555554444', '4000000000000002', '4000000000003220'];
    let i = 0;
    for (const pan of pans) {
      for (const paymentType of ['PAY', 'SUBSCRIPTION']) {
        i++;
        await createTransaction(ctx, m, {
          requestId: `r${i}`,
          relationId: `o${i}`,
          paymentType,
          planId: p.planId,
          userId: 'u',
          payAmount: '1.00',
          currency: 'USD',
          cardInfo: JSON.stringify({ holderName: 'Ada', cardNumber: pan, month: '12', year: cardYear(), cvv: '987' }),
        });
      }
    }
    expect(((await rowsOf(ctx).get('SELECT count(*) AS n FROM cards')) as { n: number }).n).toBeGreaterThan(0);
    for (const file of [app.dbPath, `${app.dbPath}-wal`].filter(existsSync)) {
      const bytes = readFileSync(file);
      for (const pan of pans) {
        expect(bytes.includes(Buffer.from(pan)), `${pan} in ${file}`).toBe(false);
        expect(bytes.includes(Buffer.from(pan, 'utf16le')), `${pan} (utf16) in ${file}`).toBe(false);
      }
    }
  });
});
