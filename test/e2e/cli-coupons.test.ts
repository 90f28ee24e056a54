import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';

let db: string;
let shopDb: ShopDatabase;
let merchantId: string;
let planId: string;
beforeAll(async () => {
  shopDb = await shopDatabase({ prefix: 'paygate-cli-coupons-' });
  db = shopDb.db;
  merchantId = paygate(['--db', db, 'merchant', 'create', '--name', 'Coupon Shop', '--json']).json().merchantId;
  planId = paygate([
    '--db',
    db,
    'plan',
    'create',
    '--name',
    'M',
    '--price',
    '9.99',
    '--cycle-type',
    'MONTHLY',
    '--json',
  ]).json().planId;
}, 120_000);
afterAll(() => shopDb.drop());

const cli = (...args: string[]) => paygate(['--db', db, 'coupon', ...args]);

describe('paygate coupon', () => {
  it('create → show → list → deactivate, with --json', () => {
    const created = cli(
      'create',
      '--code',
      'HALF3',
      '--percent-off',
      '50',
      '--duration',
      'REPEATING',
      '--cycles',
      '3',
      '--plan',
      planId,
      '--json',
    );
    expect(created.status).toBe(0);
    expect(created.json()).toMatchObject({
      couponCode: 'HALF3',
      merchantId,
      percentOff: 50,
      cycles: 3,
      planIds: [planId],
      status: 'ACTIVE',
    });
    expect(cli('show', 'HALF3', '--json').json()).toEqual(created.json());
    expect(cli('list', '--json').json()).toEqual([created.json()]);
    expect(cli('deactivate', 'HALF3', '--json').json()).toMatchObject({ couponCode: 'HALF3', status: 'INACTIVE' });
  });

  it('prints a coupon for a person without --json', () => {
    const r = cli('create', '--code', 'FIVE', '--amount-off', '5.00', '--duration', 'FOREVER');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/FIVE/);
  });

  it('refuses bad terms in one line naming the field, and creates nothing', () => {
    const r = cli('create', '--code', 'BAD', '--percent-off', '50', '--duration', 'REPEATING', '--cycles', '121');
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/cycles/);
    expect(cli('show', 'BAD').status).not.toBe(0);
  });
});
