import { writeFileSync } from 'node:fs';
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
});
