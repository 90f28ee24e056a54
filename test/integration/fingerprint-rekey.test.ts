import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp } from '../../src/app.js';
import type { Ctx } from '../../src/ctx.js';
import { loadConfig } from '../../src/config.js';
import { FixedClock } from '../../src/domain/clock.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { refundTransaction } from '../../src/services/refund.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import { fingerprinter } from '../../src/vault/fingerprint.js';
import { cardYear } from '../helpers/cards.js';
import { rowsOf } from '../helpers/rows.js';
import { TEST_VAULT_KEY, tempDir, testMerchant } from '../helpers/ctx.js';

/**
 * Databases written before fingerprints were keyed hold plain SHA-256 hex in
 * idempotency_keys.request_hash. Opening one rekeys every row once, and its duplicates keep
 * answering as before.
 */

const dirs: (() => void)[] = [];
afterEach(() => {
  for (const c of dirs.splice(0)) c();
});

const card = (cvv = '123') =>
  JSON.stringify({ cardNumber: '4242424242424242', month: '12', year: cardYear(Date.UTC(2026, 0, 15, 9, 0, 0)), cvv });
const clock = new FixedClock(Date.UTC(2026, 0, 15, 9, 0, 0));

function open(dbPath: string, key = TEST_VAULT_KEY): Promise<Ctx> {
  return openApp(loadConfig({ db: dbPath, tz: 'UTC' }, { PAYGATE_VAULT_KEY: key }), { clock });
}

/** SPEC §4's joined string, written from the text (flat inputs only here). */
const plainHash = (input: Record<string, string>): string =>
  createHash('sha256')
    .update(
      Object.keys(input)
        .filter((k) => input[k] !== '')
        .sort()
        .map((k) => `${k}=${input[k]}`)
        .join('&'),
      'utf8',
    )
    .digest('hex');

const hashes = async (ctx: Ctx) =>
  (await rowsOf(ctx).all(
    'SELECT scope, request_id AS "requestId", request_hash AS hash FROM idempotency_keys ORDER BY scope, request_id',
  )) as {
    scope: string;
    requestId: string;
    hash: string;
  }[];

/** A database as paygate wrote it before fingerprints were keyed: plain hashes, no marker. */
async function oldDatabase() {
  const t = tempDir('paygate-rekey-');
  dirs.push(t.cleanup);
  const dbPath = join(t.dir, 'old.db');
  const ctx = await open(dbPath);
  const merchantId = (await testMerchant(ctx)).merchantId;
  const m = await requireMerchant(ctx, merchantId);
  const pay = {
    merchantId,
    requestId: 'r-1',
    relationId: 'o-1',
    paymentType: 'PAY',
    payAmount: '10.00',
    currency: 'USD',
    cardInfo: card(),
  };
  const txn = await createTransaction(ctx, m, pay);
  const refund = { merchantId, transactionOrderId: txn.transactionOrderId, refundAmount: '4.00', requestId: 'rf-1' };
  const rfd = await refundTransaction(ctx, m, refund);
  const plain = { transaction: plainHash(pay), refund: plainHash(refund) };
  // What rekeying must leave: the keyed form of each plain hash (the fingerprint of that time).
  const key = fingerprinter(ctx.vault);
  const keyed = [
    { scope: 'refund', requestId: 'rf-1', hash: key(plain.refund) },
    { scope: 'transaction', requestId: 'r-1', hash: key(plain.transaction) },
  ];
  await rowsOf(ctx).run(
    'UPDATE idempotency_keys SET request_hash = ? WHERE scope = ?',
    plain.transaction,
    'transaction',
  );
  await rowsOf(ctx).run('UPDATE idempotency_keys SET request_hash = ? WHERE scope = ?', plain.refund, 'refund');
  await rowsOf(ctx).run("DELETE FROM meta WHERE key = 'request_hash'");
  await ctx.close();
  return { dbPath, merchantId, pay, refund, txn, rfd, keyed, plain };
}

describe('rekeying plain fingerprints on open', () => {
  it('an old database is rekeyed on open, and its duplicates still answer the first result or 1006', async () => {
    const old = await oldDatabase();
    const ctx = await open(old.dbPath);
    try {
      const now = await hashes(ctx);
      expect(now).toEqual(old.keyed);
      expect(now.map((r) => r.hash)).not.toContain(old.plain.transaction);
      expect(now.map((r) => r.hash)).not.toContain(old.plain.refund);

      const m = await requireMerchant(ctx, old.merchantId);
      expect((await createTransaction(ctx, m, old.pay)).transactionOrderId).toBe(old.txn.transactionOrderId);
      await expect(createTransaction(ctx, m, { ...old.pay, cardInfo: card('999') })).rejects.toMatchObject({
        code: '1006',
      });
      expect((await refundTransaction(ctx, m, old.refund)).refundTransactionId).toBe(old.rfd.refundTransactionId);
      await expect(refundTransaction(ctx, m, { ...old.refund, refundAmount: '1.00' })).rejects.toMatchObject({
        code: '1006',
      });
    } finally {
      await ctx.close();
    }
  });

  it('no plain hash is left in the database file or its WAL after rekeying', async () => {
    const old = await oldDatabase();
    const before = readFileSync(old.dbPath).toString('latin1');
    expect(before).toContain(old.plain.transaction);
    const ctx = await open(old.dbPath);
    try {
      for (const file of [old.dbPath, `${old.dbPath}-wal`].filter((f) => existsSync(f))) {
        const bytes = readFileSync(file).toString('latin1');
        expect([old.plain.transaction, old.plain.refund].filter((h) => bytes.includes(h))).toEqual([]);
      }
    } finally {
      await ctx.close();
    }
  });

  it('is applied once: reopening leaves keyed fingerprints as they are', async () => {
    const old = await oldDatabase();
    await (await open(old.dbPath)).close();
    const ctx = await open(old.dbPath);
    try {
      expect(await hashes(ctx)).toEqual(old.keyed);
    } finally {
      await ctx.close();
    }
  });

  it('under another vault key the old database is refused and left plain (rekeying cannot be undone)', async () => {
    const old = await oldDatabase();
    await expect(open(old.dbPath, randomBytes(32).toString('base64'))).rejects.toThrowError(
      /vault key does not (open|match) this database/,
    );
    const ctx = await open(old.dbPath);
    try {
      expect(await hashes(ctx)).toEqual(old.keyed);
    } finally {
      await ctx.close();
    }
  });
});
