import { rowsOf } from '../helpers/rows.js';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { FixedClock } from '../../src/domain/clock.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import type { Ctx } from '../../src/ctx.js';
import { csrfOf } from '../../src/http/pages/csrf.js';
import { uploadTracking } from '../../src/services/tracking.js';
import { rotateVaultKey } from '../../src/services/vault-rotate.js';
import { VaultKeyError, vaultFromKey } from '../../src/vault/crypto.js';
import { requestFingerprint } from '../../src/vault/fingerprint.js';
import { TEST_VAULT_KEY, testApp, testMerchant, type TestApp } from '../helpers/ctx.js';

let app: TestApp;
afterEach(async () => app?.close());

const card = JSON.stringify({
  holderName: 'Ada L',
  cardNumber: '4242424242424242',
  month: '12',
  year: String(new Date().getUTCFullYear() + 2),
  cvv: '123',
});
const pay = (n: number) => ({
  requestId: `r-${n}`,
  relationId: `rel-${n}`,
  paymentType: 'PAY',
  payAmount: '10.00',
  currency: 'USD',
  cardInfo: card,
});

function reopen(dbPath: string, key: string, opts: { vaultRotation?: 'allow'; clock?: FixedClock } = {}) {
  return openApp(loadConfig({ db: dbPath }, { PAYGATE_VAULT_KEY: key }), {
    clock: new FixedClock(Date.UTC(2026, 0, 15, 9)),
    ...opts,
  });
}

/** Rotate `ctx` to a new random key and open the database again under it. */
async function rotated(ctx: Ctx, dbPath: string, clock?: FixedClock): Promise<{ ctx: Ctx; key: Buffer }> {
  const key = randomBytes(32);
  await rotateVaultKey(ctx, key);
  await ctx.close();
  return { ctx: await reopen(dbPath, key.toString('base64'), clock ? { clock } : {}), key };
}

const storedFingerprint = async (ctx: Ctx, requestId: string) =>
  (
    await rowsOf(ctx).get<{ h: string }>(
      "SELECT request_hash AS h FROM idempotency_keys WHERE scope = 'transaction' AND request_id = ?",
      requestId,
    )
  ).h;

describe('vault key rotation', () => {
  it('keeps request fingerprints valid: a repeated requestId after rotation answers its first transaction', async () => {
    app = await testApp();
    const m = await requireMerchant(app.ctx, (await testMerchant(app.ctx)).merchantId);
    const first = await createTransaction(app.ctx, m, pay(1));
    const newKey = randomBytes(32);
    await rotateVaultKey(app.ctx, newKey);
    await app.ctx.close();
    const after = await reopen(app.dbPath, newKey.toString('base64'));
    app.ctx = after;
    const again = await createTransaction(after, await requireMerchant(after, m.id), pay(1));
    expect(again.transactionOrderId).toBe(first.transactionOrderId);
    await expect(
      createTransaction(after, await requireMerchant(after, m.id), { ...pay(1), payAmount: '11.00' }),
    ).rejects.toMatchObject({ code: '1006' });
  });

  it('fingerprints a request made after a rotation under the new key: the old key cannot recompute it', async () => {
    app = await testApp();
    const m = (await testMerchant(app.ctx)).merchantId;
    const after = await rotated(app.ctx, app.dbPath);
    app.ctx = after.ctx;
    await createTransaction(after.ctx, await requireMerchant(after.ctx, m), pay(2));
    const stored = await storedFingerprint(after.ctx, 'r-2');
    const oldKey = Buffer.from(TEST_VAULT_KEY, 'base64');
    expect(stored).not.toBe(requestFingerprint(vaultFromKey(oldKey), pay(2)).stored);
    expect(stored).toBe(requestFingerprint(vaultFromKey(after.key), pay(2)).stored);
  });

  it('after two rotations, repeats of requests made under each earlier key answer their first transaction, and other bodies 1006', async () => {
    app = await testApp();
    const m = (await testMerchant(app.ctx)).merchantId;
    const under0 = await createTransaction(app.ctx, await requireMerchant(app.ctx, m), pay(1));
    const first = await rotated(app.ctx, app.dbPath);
    app.ctx = first.ctx;
    const under1 = await createTransaction(first.ctx, await requireMerchant(first.ctx, m), pay(2));
    const second = await rotated(first.ctx, app.dbPath);
    app.ctx = second.ctx;
    const under2 = await createTransaction(second.ctx, await requireMerchant(second.ctx, m), pay(3));

    const merchant = await requireMerchant(second.ctx, m);
    for (const [n, txn] of [
      [1, under0],
      [2, under1],
      [3, under2],
    ] as const) {
      expect((await createTransaction(second.ctx, merchant, pay(n))).transactionOrderId).toBe(txn.transactionOrderId);
      await expect(createTransaction(second.ctx, merchant, { ...pay(n), payAmount: '11.00' })).rejects.toMatchObject({
        code: '1006',
      });
    }
    // The latest request is under the latest key alone: neither earlier key recomputes it.
    const stored = await storedFingerprint(second.ctx, 'r-3');
    for (const key of [Buffer.from(TEST_VAULT_KEY, 'base64'), first.key])
      expect(stored).not.toBe(requestFingerprint(vaultFromKey(key), pay(3)).stored);
    expect(stored).toBe(requestFingerprint(vaultFromKey(second.key), pay(3)).stored);
  });

  it('a signed tracking upload made before two rotations is still a replay after them: it records nothing again', async () => {
    app = await testApp();
    const m = (await testMerchant(app.ctx)).merchantId;
    const txn = await createTransaction(app.ctx, await requireMerchant(app.ctx, m), pay(1));
    const upload = { trackingList: [{ orderId: txn.transactionOrderId, trackingNo: 'T1', trackingChannel: 'UPS' }] };
    const answered = await uploadTracking(app.ctx, await requireMerchant(app.ctx, m), upload, { signature: 'ab12' });
    const first = await rotated(app.ctx, app.dbPath);
    app.ctx = first.ctx;
    const second = await rotated(first.ctx, app.dbPath);
    app.ctx = second.ctx;
    const again = await uploadTracking(second.ctx, await requireMerchant(second.ctx, m), upload, { signature: 'AB12' });
    expect(again).toEqual(answered);
    const replayKeys = await rowsOf(second.ctx).all(
      "SELECT 1 FROM idempotency_keys WHERE scope = 'tracking-signature'",
    );
    expect(replayKeys).toHaveLength(1);
  });

  it('issues hosted-page CSRF tokens under the new key; a form of the old key posts only within a page lifetime', async () => {
    app = await testApp();
    const oldToken = csrfOf(app.ctx.vault, app.clock).issue('checkout', 'tok1');
    const clock = new FixedClock(app.clock.now());
    const after = await rotated(app.ctx, app.dbPath, clock);
    app.ctx = after.ctx;
    const csrf = csrfOf(after.ctx.vault, clock);
    expect(csrf.issue('checkout', 'tok1')).not.toBe(oldToken);
    expect(csrf.check('checkout', 'tok1', csrf.issue('checkout', 'tok1'))).toBe(true);
    clock.advance(59 * 60_000);
    expect(csrf.check('checkout', 'tok1', oldToken)).toBe(true);
    clock.advance(2 * 60_000);
    expect(csrf.check('checkout', 'tok1', oldToken)).toBe(false);
  });

  it('a database rotated by an earlier version (one pinned key) recognises its earlier requests and signed uploads, and fingerprints new requests under the current key', async () => {
    app = await testApp();
    const m = (await testMerchant(app.ctx)).merchantId;
    const earlier = await createTransaction(app.ctx, await requireMerchant(app.ctx, m), pay(1));
    const txn = await createTransaction(app.ctx, await requireMerchant(app.ctx, m), pay(2));
    const upload = { trackingList: [{ orderId: txn.transactionOrderId, trackingNo: 'T1', trackingChannel: 'UPS' }] };
    const answered = await uploadTracking(app.ctx, await requireMerchant(app.ctx, m), upload, { signature: 'ab12' });
    const old = vaultFromKey(Buffer.from(TEST_VAULT_KEY, 'base64'));
    const after = await rotated(app.ctx, app.dbPath);
    app.ctx = after.ctx;
    // What earlier versions sealed: the old key's derived keys, still used for everything new.
    const legacy = JSON.stringify({
      'request-fingerprint': old.derive('request-fingerprint').toString('base64'),
      'hosted-page-csrf': old.derive('hosted-page-csrf').toString('base64'),
    });
    await rowsOf(after.ctx).run(
      "UPDATE meta SET value = ? WHERE key = 'vault_pinned'",
      after.ctx.vault.encrypt(legacy),
    );
    await after.ctx.close();
    app.ctx = await reopen(app.dbPath, after.key.toString('base64'));

    const merchant = await requireMerchant(app.ctx, m);
    expect((await createTransaction(app.ctx, merchant, pay(1))).transactionOrderId).toBe(earlier.transactionOrderId);
    await expect(createTransaction(app.ctx, merchant, { ...pay(1), payAmount: '11.00' })).rejects.toMatchObject({
      code: '1006',
    });
    expect(await uploadTracking(app.ctx, merchant, upload, { signature: 'ab12' })).toEqual(answered);
    await createTransaction(app.ctx, merchant, pay(3));
    expect(await storedFingerprint(app.ctx, 'r-3')).toBe(requestFingerprint(vaultFromKey(after.key), pay(3)).stored);
  });

  it('an interrupted rotation is resumed by running it again with the same key; nothing else opens the database meanwhile', async () => {
    app = await testApp();
    for (let i = 0; i < 3; i++) await testMerchant(app.ctx, { name: `Shop ${i}` });
    const newKey = randomBytes(32);
    let batches = 0;
    // BATCH is 500 rows: with 3 merchants the first progress report comes after the cards (none) —
    // stop at the first report to simulate a crash part-way.
    await expect(
      rotateVaultKey(app.ctx, newKey, () => {
        batches++;
        throw new Error('crash');
      }),
    ).rejects.toThrow('crash');
    expect(batches).toBe(1);
    await app.ctx.close();

    await expect(reopen(app.dbPath, TEST_VAULT_KEY)).rejects.toThrow(VaultKeyError);
    await expect(reopen(app.dbPath, TEST_VAULT_KEY)).rejects.toThrow(/rotation was started and has not finished/);
    const resumed = await reopen(app.dbPath, TEST_VAULT_KEY, { vaultRotation: 'allow' });
    await expect(rotateVaultKey(resumed, randomBytes(32))).rejects.toThrow(/rotation to another new key/);
    const summary = await rotateVaultKey(resumed, newKey);
    expect(summary).toEqual({ reencrypted: 0, alreadyDone: 3 });
    await resumed.close();

    app.ctx = await reopen(app.dbPath, newKey.toString('base64'));
    const secrets = (await rowsOf(app.ctx).all<{ s: string }>('SELECT secret_enc AS s FROM merchants')).map((r) => r.s);
    for (const s of secrets) expect(() => app.ctx.vault.decrypt(s)).not.toThrow();
  });
});
