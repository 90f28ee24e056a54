import { afterAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';
import { client, createMerchant, startServe } from '../helpers/serve.js';

const databases: ShopDatabase[] = [];
afterAll(async () => {
  for (const d of databases) await d.drop();
});
/** A fresh database of this test's own, on the engine under test. */
async function freshDb(): Promise<string> {
  const d = await shopDatabase({ prefix: 'paygate-rotate-key-' });
  databases.push(d);
  return d.db;
}

describe('paygate merchant rotate-key', () => {
  it('issues a new apiKey once; the old one keeps working for 24 hours, then is refused (1003)', async () => {
    const db = await freshDb();
    // v1: its signature carries no timestamp, so the server 24 hours ahead can still check it.
    const m = createMerchant(db, 1);
    const r = paygate(['--db', db, 'merchant', 'rotate-key', m.merchantId]);
    expect(r.status, r.stderr).toBe(0);
    const { apiKey, previousValidUntil } = r.json();
    expect(apiKey).toMatch(/^ak_/);
    expect(apiKey).not.toBe(m.apiKey);
    expect(previousValidUntil).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(paygate(['--db', db, 'merchant', 'show', m.merchantId]).stdout).not.toContain(apiKey);

    const query = (srvUrl: string, key: string) =>
      client(srvUrl, { ...m, apiKey: key }).get(`/payment/${key}/transaction/query`, { relationId: 'none' });
    const now = await startServe({ dbPath: db });
    try {
      expect((await query(now.url, apiKey)).body.rtn_code).toBe('1007');
      expect((await query(now.url, m.apiKey)).body.rtn_code).toBe('1007'); // still accepted: authenticated, then not found
    } finally {
      await now.stop();
    }
    const later = await startServe({
      dbPath: db,
      env: { PAYGATE_TEST_CLOCK_OFFSET_MS: String(24 * 3600_000 + 60_000) },
    });
    try {
      expect((await query(later.url, m.apiKey)).body.rtn_code).toBe('1003');
      expect((await query(later.url, apiKey)).body.rtn_code).toBe('1007');
    } finally {
      await later.stop();
    }
  });

  it('answers 1007 for an unknown merchant', async () => {
    const db = await freshDb();
    createMerchant(db);
    const r = paygate(['--db', db, 'merchant', 'rotate-key', 'mer_nope']);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toMatch(/^error 1007: /);
  });
});
