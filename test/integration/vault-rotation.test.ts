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
afterEach(() => app?.close());

const card = JSON.stringify({ holderName: 'Ada L', cardNumber: '4242424242424242', month: '12', year: String(new Date().getUTCFullYear() + 2), cvv: '123' });
const pay = (n: number) => ({ requestId: `r-${n}`, relationId: `rel-${n}`, paymentType: 'PAY', payAmount: '10.00', currency: 'USD', cardInfo: card });

function reopen(dbPath: string, key: string, opts: { vaultRotation?: 'allow' } = {}) {
  return openApp(loadConfig({ db: dbPath }, { PAYGATE_VAULT_KEY: key }), { clock: new FixedClock(Date.UTC(2026, 0, 15, 9)), ...opts });
}

describe('vault key rotation', () => {
  it('keeps request fingerprints valid: a repeated requestId after rotation answers its first transaction', async () => {
    app = testApp();
    const m = requireMerchant(app.ctx, testMerchant(app.ctx).merchantId);
    const first = await createTransaction(app.ctx, m, pay(1));
    const newKey = randomBytes(32);
    rotateVaultKey(app.ctx, newKey);
    app.ctx.close();
    const after = reopen(app.dbPath, newKey.toString('base64'));
    app.ctx = after;
    const again = await createTransaction(after, requireMerchant(after, m.id), pay(1));
    expect(again.transactionOrderId).toBe(first.transactionOrderId);
    await expect(createTransaction(after, requireMerchant(after, m.id), { ...pay(1), payAmount: '11.00' })).rejects.toMatchObject({ code: '1006' });
  });

  it('an interrupted rotation is resumed by running it again with the same key; nothing else opens the database meanwhile', () => {
    app = testApp();
    for (let i = 0; i < 3; i++) testMerchant(app.ctx, { name: `Shop ${i}` });
    const newKey = randomBytes(32);
    let batches = 0;
    // BATCH is 500 rows: with 3 merchants the first progress report comes after the cards (none) —
    // stop at the first report to simulate a crash part-way.
    expect(() =>
      rotateVaultKey(app.ctx, newKey, () => {
        batches++;
        throw new Error('crash');
      }),
    ).toThrow('crash');
    expect(batches).toBe(1);
    app.ctx.close();

    expect(() => reopen(app.dbPath, TEST_VAULT_KEY)).toThrow(VaultKeyError);
    expect(() => reopen(app.dbPath, TEST_VAULT_KEY)).toThrow(/rotation was started and has not finished/);
    const resumed = reopen(app.dbPath, TEST_VAULT_KEY, { vaultRotation: 'allow' });
    expect(() => rotateVaultKey(resumed, randomBytes(32))).toThrow(/rotation to another new key/);
    const summary = rotateVaultKey(resumed, newKey);
    expect(summary).toEqual({ reencrypted: 0, alreadyDone: 3 });
    resumed.close();

    app.ctx = reopen(app.dbPath, newKey.toString('base64'));
    const secrets = app.ctx.sqlite.prepare('SELECT secret_enc FROM merchants').pluck().all() as string[];
    for (const s of secrets) expect(() => app.ctx.vault.decrypt(s)).not.toThrow();
  });
});
