#!/usr/bin/env node
// A sandbox PAY without HTTP: the transaction service called in-process, --pays N (default
// 20,000) by 50 concurrent callers on a new SQLite database (WAL, synchronous=FULL), one merchant.
// What a PAY costs in paygate's services and store alone, to set beside bench/http.mjs's PAY
// (the same work behind fastify, the signature check and the request log) and its group-commit
// limit. Usage: node bench/pay-service.mjs [--pays N] [--random-ids] (build first: npm ci does);
// --random-ids: each PAY's requestId and relationId a random UUID, as a real client's may be, instead
// of r1, o1, r2, … (which sort almost in order, so their unique indexes grow at one end); other
// options (those `npm run bench` passes to every benchmark chosen) are ignored.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dist = new URL('../dist/', import.meta.url);
const { openApp } = await import(new URL('app.js', dist));
const { loadConfig } = await import(new URL('config.js', dist));
const { createMerchant, requireMerchant } = await import(new URL('services/merchants.js', dist));
const { createTransaction } = await import(new URL('services/transactions/index.js', dist));

const paysAt = process.argv.indexOf('--pays');
const N = paysAt > 0 ? Number(process.argv[paysAt + 1]) : 20_000;
if (!Number.isSafeInteger(N) || N < 1) throw new Error('--pays takes a whole number of PAYs');
const CALLERS = 50;
const randomIds = process.argv.includes('--random-ids');
const dir = mkdtempSync(join(tmpdir(), 'paygate-pay-service-'));
const config = loadConfig(
  { db: join(dir, 'paygate.db'), tz: 'UTC' },
  { PAYGATE_VAULT_KEY: randomBytes(32).toString('base64') },
);
const ctx = await openApp(config);
try {
  const { merchantId } = await createMerchant(ctx, { name: 'Bench Shop', notifyUrl: 'https://shop.example/notify' });
  const merchant = await requireMerchant(ctx, merchantId);
  const cardInfo = JSON.stringify({
    holderName: 'Ada Lovelace',
    cardNumber: '4242424242424242',
    month: '12',
    year: String(new Date().getUTCFullYear() + 5),
    cvv: '123',
  });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      for (let i = next++; i < N; i = next++) {
        await createTransaction(ctx, merchant, {
          requestId: randomIds ? randomUUID() : `r${i}`,
          relationId: randomIds ? randomUUID() : `o${i}`,
          paymentType: 'PAY',
          payAmount: '10.00',
          currency: 'USD',
          cardInfo,
        });
      }
    }),
  );
  const ms = performance.now() - t0;
  console.log(
    `${N.toLocaleString('en')} PAYs by ${CALLERS} callers in ${(ms / 1000).toFixed(2)} s: ${Math.round((N / ms) * 1000).toLocaleString('en')} PAY/s, ${((ms * 1000) / N).toFixed(1)} µs each`,
  );
} finally {
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });
}
