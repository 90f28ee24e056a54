import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { cardYear } from '../helpers/cards.js';
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
  it('create → show, with --json', () => {
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
  });

  // A test of its own: on a loaded machine four spawns of the binary can outlast one test's time.
  it('list → deactivate, with --json', () => {
    expect(cli('list', '--json').json()).toMatchObject([{ couponCode: 'HALF3', status: 'ACTIVE' }]);
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

const card = ['--card', '4242424242424242', '--exp', `12/${cardYear()}`, '--cvv', '123'];
const subscribe = (...args: string[]) =>
  paygate(['--db', db, 'subscribe', '--plan', planId, '--user', 'u-coupon', ...card, ...args, '--json']);

// Each test spawns at most two binaries: on a loaded machine every spawn costs seconds.
describe('paygate subscribe --coupon and sub coupon', () => {
  beforeAll(() => {
    expect(cli('create', '--code', 'TENOFF', '--amount-off', '1.00', '--duration', 'ONCE').status).toBe(0);
    expect(cli('create', '--code', 'LOYAL', '--percent-off', '10', '--duration', 'FOREVER').status).toBe(0);
  }, 120_000);

  it('subscribe --coupon charges the first payment less the discount', () => {
    const r = subscribe('--coupon', 'TENOFF');
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ payAmount: '8.99', status: '200000' });
    expect(cli('show', 'TENOFF', '--json').json()).toMatchObject({ redemptions: 1 });
  });

  it('prints every discount and coupon amount as a string with its decimals, as every amount (--json)', () => {
    expect(cli('show', 'TENOFF', '--json').json()).toMatchObject({ amountOff: '1.00' });
    const sub = subscribe('--coupon', 'LOYAL').json() as { subscriptionCode: string; subscriptionId: string };
    const [first] = paygate(['--db', db, 'billing', 'list', '--subscription', sub.subscriptionCode, '--json']).json()
      .records as Array<Record<string, unknown>>;
    expect(first).toMatchObject({ amount: '8.99', discountAmount: '1.00', couponCode: 'LOYAL' });
    expect(paygate(['--db', db, 'sub', 'show', sub.subscriptionId, '--json']).json()).toMatchObject({
      couponCode: 'LOYAL',
      discountAmount: '1.00',
    });
  });

  it('subscribe --coupon with a code that cannot be taken exits with one 1012 line and creates nothing', () => {
    const r = paygate([
      '--db',
      db,
      'subscribe',
      '--plan',
      planId,
      '--user',
      'u-refused',
      ...card,
      '--coupon',
      'NOSUCH',
    ]);
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/NOSUCH is not a coupon/);
    expect(paygate(['--db', db, 'sub', 'list', '--user', 'u-refused', '--json']).json()).toEqual([]);
  });

  it('sub coupon ID CODE gives a subscription a coupon for its next renewal', () => {
    const sub = subscribe().json() as { subscriptionId: string };
    const r = paygate(['--db', db, 'sub', 'coupon', sub.subscriptionId, 'LOYAL', '--json']);
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ subscriptionId: sub.subscriptionId, couponCode: 'LOYAL' });
  });
});
