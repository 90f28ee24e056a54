import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';
import { createMerchant } from '../helpers/serve.js';

let t: ShopDatabase;
let db: string;
let txn: string;
afterAll(() => t.drop());

beforeAll(async () => {
  t = await shopDatabase({ prefix: 'paygate-tracking-' });
  db = t.db;
  createMerchant(db);
  const year = String(new Date().getUTCFullYear() + 2);
  const pay = paygate([
    '--db',
    db,
    'pay',
    '--amount',
    '9.00',
    '--relation',
    'order-77',
    '--card',
    '4242424242424242',
    '--exp',
    `12/${year}`,
    '--cvv',
    '123',
  ]);
  expect(pay.status, pay.stderr).toBe(0);
  txn = pay.json().transactionOrderId;
});

describe('tracking from the CLI', () => {
  it('upload reports why each failed entry failed', () => {
    const file = join(t.dir, 'entries.json');
    writeFileSync(
      file,
      JSON.stringify([
        { orderId: txn, trackingNo: 'TN1', trackingChannel: 'DHL', trackUrl: 'https://track.example/TN1' },
        { relationId: 'order-77', trackingNo: 'TN2' },
        { orderId: 'txn_unknown', trackingNo: 'TN3', trackingChannel: 'UPS' },
      ]),
    );
    const r = paygate(['--db', db, 'tracking', 'upload', '--file', file]);
    // SPEC §12: failed entries print the result as usual and exit 3.
    expect(r.status, r.stderr).toBe(3);
    expect(r.json()).toMatchObject({
      successCount: 1,
      failedCount: 2,
      failedOrders: ['order-77', 'txn_unknown'],
      failures: [
        { entry: 'order-77', reason: 'trackingChannel is missing' },
        { entry: 'txn_unknown', reason: 'no transaction of this merchant has this orderId' },
      ],
    });
  });

  it('tracking list and tracking show read the uploads back', () => {
    const list = paygate(['--db', db, 'tracking', 'list']);
    expect(list.status, list.stderr).toBe(0);
    expect(list.json()).toEqual([
      expect.objectContaining({
        transactionOrderId: txn,
        relationId: 'order-77',
        trackingNo: 'TN1',
        trackingChannel: 'DHL',
        trackUrl: 'https://track.example/TN1',
      }),
    ]);
    const show = paygate(['--db', db, 'tracking', 'show', txn]);
    expect(show.json()).toHaveLength(1);
    const missing = paygate(['--db', db, 'tracking', 'show', 'txn_nope']);
    expect(missing.status).toBe(1);
    expect(missing.stderr.trim()).toMatch(/^error 1007: /);
  });

  it('an upload whose entries all landed exits 0', () => {
    const r = paygate(['--db', db, 'tracking', 'upload', '--order', txn, '--tracking-no', 'TN9', '--carrier', 'DHL']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ successCount: 1, failedCount: 0 });
  });

  // Read whole, `--file /dev/zero` ended the process with std::bad_alloc (exit 134).
  it('--file that is not a regular file (a device, a directory) is a one-line 1001, read not at all', () => {
    const dir = join(t.dir, 'a-directory');
    mkdirSync(dir);
    for (const path of ['/dev/zero', dir]) {
      const r = paygate(['--db', db, 'tracking', 'upload', '--file', path]);
      expect(r.status, path).toBe(1);
      expect(r.stderr.trim()).toBe(`error 1001: file: ${path} is not a regular file: name a CSV or JSON file`);
    }
  });

  it('--file larger than 1 MiB is a one-line 1001; 1 MiB itself is read', () => {
    const entry = `${JSON.stringify({ orderId: txn, trackingNo: 'TN-big', trackingChannel: 'DHL' })}`;
    const padded = (bytes: number) => `[${entry}]`.padEnd(bytes, ' ');
    const big = join(t.dir, 'big.json');
    writeFileSync(big, padded(1024 * 1024 + 1));
    const r = paygate(['--db', db, 'tracking', 'upload', '--file', big]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(
      `error 1001: file: ${big} is larger than 1 MiB, the most one upload may be (split it)`,
    );
    writeFileSync(big, padded(1024 * 1024));
    const ok = paygate(['--db', db, 'tracking', 'upload', '--file', big]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.json()).toMatchObject({ successCount: 1 });
  });
});
