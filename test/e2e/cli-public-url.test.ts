import { afterAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';
import { createMerchant, startServe } from '../helpers/serve.js';

const databases: ShopDatabase[] = [];
afterAll(async () => {
  for (const d of databases) await d.drop();
});
/** A fresh database of this test's own, on the engine under test. */
async function freshDb(): Promise<string> {
  const d = await shopDatabase({ prefix: 'paygate-public-url-' });
  databases.push(d);
  return d.db;
}

const checkoutUrl = (db: string, env: NodeJS.ProcessEnv = {}): string => {
  const r = paygate(['--db', db, 'pay', '--amount', '5.00', '--checkout'], { env });
  expect(r.status, r.stderr).toBe(0);
  return r.json().url as string;
};

describe('one public URL for every process', () => {
  it('paygate config set public-url makes CLI checkout links use it', async () => {
    const db = await freshDb();
    createMerchant(db);
    expect(checkoutUrl(db)).toMatch(/^http:\/\/127\.0\.0\.1:8080\/checkout\//);
    const set = paygate(['--db', db, 'config', 'set', 'public-url', 'https://pay.example.test/']);
    expect(set.status, set.stderr).toBe(0);
    expect(set.json()).toEqual({ 'public-url': 'https://pay.example.test' });
    expect(checkoutUrl(db)).toMatch(/^https:\/\/pay\.example\.test\/checkout\/[\w-]+$/);
    // The environment still wins where it is set.
    expect(checkoutUrl(db, { PAYGATE_PUBLIC_URL: 'https://other.example.test' })).toMatch(
      /^https:\/\/other\.example\.test\/checkout\//,
    );
    expect(paygate(['--db', db, 'config', 'unset', 'public-url']).status).toBe(0);
    expect(checkoutUrl(db)).toMatch(/^http:\/\/127\.0\.0\.1:8080\/checkout\//);
  });

  it('serve --public-url records it, so a checkout created from the CLI links to the public address', async () => {
    const db = await freshDb();
    createMerchant(db);
    const srv = await startServe({ dbPath: db, args: ['--public-url', 'https://shop-pay.example.test'] });
    try {
      expect(checkoutUrl(db)).toMatch(/^https:\/\/shop-pay\.example\.test\/checkout\//);
      expect(paygate(['--db', db, 'config', 'get', 'public-url']).json()).toMatchObject({
        'public-url': 'https://shop-pay.example.test',
      });
    } finally {
      await srv.stop();
    }
  });

  it('refuses a value that is not an http(s) base URL', async () => {
    const db = await freshDb();
    const r = paygate(['--db', db, 'config', 'set', 'public-url', 'ftp://x']);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      /^error 1001: public-url: must start with http:\/\/ or https:\/\//,
    );
    expect(paygate(['--db', db, 'config', 'set', 'color', 'x']).status).toBe(2);
  });
});
