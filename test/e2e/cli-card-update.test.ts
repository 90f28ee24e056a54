import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardYear } from '../helpers/cards.js';
import { paygate } from '../helpers/cli.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';

let db: string;
let shopDb: ShopDatabase;
const cli = (args: string[], input?: string) =>
  paygate(['--db', db, '--json', ...args], input !== undefined ? { input } : {});

beforeAll(async () => {
  shopDb = await shopDatabase({ prefix: 'paygate-cli-card-' });
  db = shopDb.db;
});
afterAll(() => shopDb.drop());

describe('paygate sub update-card', () => {
  it('replaces the card with --card flags or --card-json -, without asking; the card never appears in full', async () => {
    cli(['merchant', 'create', '--name', 'Shop']);
    const plan = cli(['plan', 'create', '--name', 'Monthly', '--price', '5.00', '--cycle-type', 'MONTHLY']).json()
      .planId as string;
    const sub = cli([
      'subscribe',
      '--plan',
      plan,
      '--user',
      'u1',
      '--card',
      '4242424242424242',
      '--exp',
      `12/${cardYear()}`,
      '--cvv',
      '123',
    ]).json();
    const flags = cli([
      'sub',
      'update-card',
      sub.subscriptionCode,
      '--card',
      '5555555555554444',
      '--exp',
      `11/${cardYear()}`,
      '--cvv',
      '321',
    ]);
    expect(flags.status, flags.stderr).toBe(0);
    expect(flags.json()).toMatchObject({
      subscriptionId: sub.subscriptionId,
      status: '200000',
      card: '555555******4444',
    });
    expect(flags.stdout).not.toContain('5555555555554444');
    const json = JSON.stringify({
      holderName: 'Ada',
      cardNumber: '4000000000000002',
      month: '10',
      year: cardYear(),
      cvv: '123',
    });
    const declined = cli(['sub', 'update-card', sub.subscriptionId, '--card-json', '-'], json);
    // SPEC §12: a declined check prints its result and exits 3.
    expect(declined.status).toBe(3);
    expect(declined.json()).toMatchObject({ status: '300000', failReason: 'card_declined', card: '555555******4444' });
    const bad = paygate([
      '--db',
      db,
      'sub',
      'update-card',
      sub.subscriptionId,
      '--card',
      '4242424242424241',
      '--exp',
      `12/${cardYear()}`,
      '--cvv',
      '123',
    ]);
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim()).toMatch(/^error 1011: /);
    expect(bad.stderr).not.toContain('4242424242424241');
  });
});
