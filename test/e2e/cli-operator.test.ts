import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { FixedClock } from '../../src/domain/clock.js';
import { paygate } from '../helpers/cli.js';
import { CLOSED_NOTIFY_URL, TEST_VAULT_KEY, testMerchant } from '../helpers/ctx.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';
import { paygatePty } from '../helpers/pty.js';
import { subscribe } from '../helpers/subscriptions.js';
import { createPlan } from '../../src/services/plans.js';
import { cardYear } from '../helpers/cards.js';

let shopDb: ShopDatabase;
let db: string;
const cli = (args: string[]) => paygate(['--db', db, ...args]);
const card = ['--card', '4242424242424242', '--exp', `12/${cardYear()}`, '--cvv', '123'];
let shopA = '';
let shopB = '';
let planB = '';
/** A subscription of Shop B's plan, for the commands that take its id or its code. */
let subscribed = { subscriptionId: '', subscriptionCode: '' };

// Two shops, each with a plan, and one subscription, arranged in-process (one process, not a CLI
// run each): every command under test below is the real binary.
beforeAll(async () => {
  shopDb = await shopDatabase();
  db = shopDb.db;
  const ctx = await openApp(loadConfig({ db, tz: 'UTC' }, { PAYGATE_VAULT_KEY: TEST_VAULT_KEY }));
  try {
    shopA = (await testMerchant(ctx, { name: 'Shop A' })).merchantId;
    shopB = (await testMerchant(ctx, { name: 'Shop B' })).merchantId;
    const plan = {
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
      trialDays: 0,
      maxSubscriptions: 0,
    };
    await createPlan(ctx, shopA, { ...plan, planName: 'A-Gold', price: '5.00' });
    planB = (await createPlan(ctx, shopB, { ...plan, planName: 'B-Gold', price: '4.50' })).planId;
    subscribed = await subscribe(ctx, shopB, planB, { userId: 'u-0' });
  } finally {
    await ctx.close();
  }
});
afterAll(() => shopDb.drop());

describe('commands that name an object by its id never need --merchant (two merchants)', () => {
  it('plan show / deactivate / activate', () => {
    expect(cli(['plan', 'show', planB]).json()).toMatchObject({ planId: planB, merchantId: shopB });
    expect(cli(['plan', 'deactivate', planB]).json().status).toBe('INACTIVE');
    expect(cli(['plan', 'activate', planB]).json().status).toBe('ACTIVE');
    // --merchant still narrows: another merchant's plan reads as absent.
    expect(cli(['plan', 'show', planB, '--merchant', shopA]).stderr.trim()).toBe('error 1007: plan not found');
  });

  it('subscribe takes the merchant from the plan', () => {
    const s = cli(['subscribe', '--plan', planB, '--user', 'u-1', ...card]);
    expect(s.status).toBe(0);
    const { subscriptionId } = s.json();
    expect(cli(['sub', 'show', subscriptionId]).json()).toMatchObject({ subscriptionId, planId: planB });
  });

  it('sub commands take the id or the code', () => {
    const { subscriptionId, subscriptionCode } = subscribed;
    expect(cli(['sub', 'show', subscriptionCode]).json().subscriptionId).toBe(subscriptionId);
    expect(cli(['sub', 'pause', subscriptionCode]).json().status).toBe('PAUSED');
    expect(cli(['sub', 'resume', subscriptionId]).json().status).toBe('ACTIVE');
    expect(cli(['sub', 'cancel', subscriptionCode, '--yes']).json().status).toBe('CANCELLED');
  });

  it('billing list takes the code or the id', () => {
    const billing = cli(['billing', 'list', '--subscription', subscribed.subscriptionCode]);
    expect(billing.status).toBe(0);
    expect(billing.json().total).toBeGreaterThan(0);
    expect(cli(['billing', 'list', '--subscription', subscribed.subscriptionId]).json()).toEqual(billing.json());
  });

  it('tx show and refund --tx', () => {
    const paid = cli(['pay', '--merchant', shopB, '--amount', '10.00', ...card]).json();
    expect(cli(['tx', 'show', paid.transactionOrderId]).json().merchantId).toBe(shopB);
    const r = cli(['refund', '--tx', paid.transactionOrderId, '--amount', '1.00']);
    expect(r.status).toBe(0);
    expect(r.json().status).toBe('400010');
  });

  it('a command that needs a merchant, off a terminal, says which option is missing', () => {
    const r = cli(['pay', '--amount', '1.00', ...card]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error 1001: merchant: --merchant is required/);
  });
});

describe('listing commands span every merchant; --merchant filters', () => {
  it('plan list', () => {
    const all = cli(['plan', 'list'])
      .json()
      .map((p: { planName: string }) => p.planName);
    expect(all.sort()).toEqual(['A-Gold', 'B-Gold']);
    expect(
      cli(['plan', 'list', '--merchant', shopA])
        .json()
        .map((p: { planName: string }) => p.planName),
    ).toEqual(['A-Gold']);
  });

  it('tx list and sub list', () => {
    expect(
      cli(['tx', 'list'])
        .json()
        .every((t: { merchantId: string }) => t.merchantId === shopB),
    ).toBe(true);
    expect(cli(['tx', 'list', '--merchant', shopA]).json()).toEqual([]);
    expect(cli(['sub', 'list']).json().length).toBeGreaterThan(0);
    expect(cli(['sub', 'list', '--merchant', shopA]).json()).toEqual([]);
  });
});

describe('on a terminal a missing merchant is chosen from a list', () => {
  it('pay without --merchant offers both; the one chosen is charged', async () => {
    const s = paygatePty(['--db', db, '--no-color', 'pay', '--amount', '2.00', ...card, '--json']);
    // --json means no prompts: the usual error.
    expect(await s.exit).toBe(1);
    const t = paygatePty(['--db', db, '--no-color', 'pay', '--amount', '2.00', ...card]);
    await t.waitFor('Shop B');
    expect(t.output()).toContain('Shop A');
    t.type('\x1b[B'); // arrow down: Shop B
    t.type('\r');
    expect(await t.exit).toBe(0);
    expect(t.output()).toContain('200000');
    const newest = cli(['tx', 'list', '--limit', '1']).json()[0];
    expect(newest).toMatchObject({ merchantId: shopB, payAmount: '2.00' });
  });

  it('the merchant is asked first, then the amount', async () => {
    const t = paygatePty(['--db', db, '--no-color', 'pay', ...card]);
    await t.waitFor('Shop B');
    expect(t.output()).not.toContain('Amount');
    t.type('\r'); // Shop A
    await t.waitFor('Amount');
    t.type('1.25\r');
    expect(await t.exit).toBe(0);
    expect(cli(['tx', 'list', '--limit', '1']).json()[0]).toMatchObject({ merchantId: shopA, payAmount: '1.25' });
  });
});

describe('paging on every list', () => {
  let pagedDb: string;
  let paged: ShopDatabase;
  beforeAll(async () => {
    paged = await shopDatabase();
    pagedDb = paged.db;
    const ctx = await openApp(loadConfig({ db: pagedDb, tz: 'UTC' }, { PAYGATE_VAULT_KEY: TEST_VAULT_KEY }), {
      clock: new FixedClock(Date.UTC(2026, 0, 15, 9)),
    });
    // A URL, so each payment's callback event is written (events with nowhere to go are not).
    const m = await testMerchant(ctx, { notifyUrl: CLOSED_NOTIFY_URL });
    const p = await createPlan(ctx, m.merchantId, {
      planName: 'P',
      price: '1.00',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
      trialDays: 0,
      maxSubscriptions: 0,
    });
    for (let i = 0; i < 120; i++) await subscribe(ctx, m.merchantId, p.planId, { userId: `u-${i}` });
    await ctx.close();
  });
  afterAll(() => paged.drop());

  it('sub list goes past 100: --limit and --page reach every subscription once', () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const r = paygate(['--db', pagedDb, 'sub', 'list', '--limit', '50', '--page', String(page)]);
      expect(r.status).toBe(0);
      seen.push(...r.json().map((s: { subscriptionId: string }) => s.subscriptionId));
    }
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
    expect(paygate(['--db', pagedDb, 'sub', 'list', '--limit', '50', '--page', '4']).json()).toEqual([]);
  });

  it('tx list, events list, plan list, merchant list take the same options', () => {
    expect(paygate(['--db', pagedDb, 'tx', 'list', '--limit', '100', '--page', '2']).json()).toHaveLength(20);
    expect(paygate(['--db', pagedDb, 'events', 'list', '--limit', '100', '--page', '2']).json()).toHaveLength(20);
    expect(paygate(['--db', pagedDb, 'plan', 'list', '--limit', '1', '--page', '2']).json()).toEqual([]);
    expect(paygate(['--db', pagedDb, 'merchant', 'list', '--limit', '1']).json()).toHaveLength(1);
    expect(paygate(['--db', pagedDb, 'sub', 'list', '--limit', '0']).status).toBe(2);
  });
});
