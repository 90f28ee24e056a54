import { rowsOf } from '../helpers/rows.js';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { FixedClock } from '../../src/domain/clock.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import { rotateVaultKey } from '../../src/services/vault-rotate.js';
import { VaultKeyError } from '../../src/vault/crypto.js';
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

function reopen(dbPath: string, key: string, opts: { vaultRotation?: 'allow' } = {}) {
  return openApp(loadConfig({ db: dbPath }, { PAYGATE_VAULT_KEY: key }), {
    clock: new FixedClock(Date.UTC(2026, 0, 15, 9)),
    ...opts,
  });
}

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
