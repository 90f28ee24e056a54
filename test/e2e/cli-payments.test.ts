import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { BIN, paygate } from '../helpers/cli.js';
import { TEST_VAULT_KEY } from '../helpers/env.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';
import { cardYear } from '../helpers/cards.js';

let dir: string;
let shopDb: ShopDatabase;
let db: string;
const outputs: string[] = [];

/** Every CLI run goes through here so the PAN check below sees all output. */
function cli(args: string[], input?: string) {
  const r = paygate(['--db', db, ...args], input !== undefined ? { input } : {});
  outputs.push(r.stdout, r.stderr);
  return r;
}

beforeAll(async () => {
  shopDb = await shopDatabase();
  ({ dir, db } = shopDb);
  expect(cli(['merchant', 'create', '--name', 'Shop', '--json']).status).toBe(0);
});
afterAll(() => shopDb.drop());

const card = (n: string) => ['--card', n, '--exp', `12/${cardYear()}`, '--cvv', '123'];

describe('paygate pay / refund (issue 3 done-when)', () => {
  let paid = '';
  it('4242… → 200000', () => {
    const r = cli(['pay', '--amount', '10.00', ...card('4242424242424242'), '--json']);
    expect(r.status).toBe(0);
    const v = r.json();
    expect(v).toMatchObject({ status: '200000', payAmount: '10.00', currency: 'USD' });
    paid = v.transactionOrderId;
  });

  it('4000000000000002 → 300000 card_declined: the result is printed and the exit status is 3', () => {
    const r = cli(['pay', '--amount', '10.00', ...card('4000000000000002'), '--json']);
    expect(r.status).toBe(3);
    expect(r.json()).toMatchObject({ status: '300000', failReason: 'card_declined' });
  });

  it('a card that asks for 3-D Secure → 100040, printed, exit status 4: not paid yet, so `pay && ship` ships nothing', () => {
    const r = cli(['pay', '--amount', '10.00', ...card('4000000000003220'), '--json']);
    expect(r.status).toBe(4);
    expect(r.json()).toMatchObject({ status: '100040' });
  });

  it('refund 4.00 → PARTIALLY_REFUNDED, then 7.00 → error 1010', () => {
    const a = cli(['refund', '--tx', paid, '--amount', '4.00', '--json']);
    expect(a.status).toBe(0);
    expect(a.json()).toMatchObject({ status: '400010', payAmount: '4.00' });
    const b = cli(['refund', '--tx', paid, '--amount', '7.00', '--json']);
    expect(b.status).toBe(1);
    expect(b.stderr).toMatch(/^error 1010: /);
  });

  it('--card-json - reads the card from standard input', () => {
    const r = cli(
      ['pay', '--amount', '3.00', '--currency', 'JPY', '--card-json', '-', '--json'],
      JSON.stringify({ cardNumber: '5555555555554444', month: '01', year: cardYear(Date.now(), 5), cvv: '999' }),
    );
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ status: '200000', payAmount: '3', currency: 'JPY' });
  });

  it('--checkout answers 100050 with a checkout url', () => {
    const r = cli(['pay', '--amount', '5.00', '--checkout', '--json']);
    // Making the page is what was asked: exit 0; the shopper pays on it later.
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ status: '100050' });
    expect(r.json().url).toMatch(/\/checkout\//);
  });

  it('the same --request twice is one transaction', () => {
    const a = cli([
      'pay',
      '--amount',
      '1.00',
      ...card('4242424242424242'),
      '--request',
      'fixed',
      '--relation',
      'ord-fixed',
      '--json',
    ]).json();
    const b = cli([
      'pay',
      '--amount',
      '1.00',
      ...card('4242424242424242'),
      '--request',
      'fixed',
      '--relation',
      'ord-fixed',
      '--json',
    ]).json();
    expect(b.transactionOrderId).toBe(a.transactionOrderId);
    const c = cli([
      'pay',
      '--amount',
      '2.00',
      ...card('4242424242424242'),
      '--request',
      'fixed',
      '--relation',
      'ord-fixed',
      '--json',
    ]);
    expect(c.stderr).toMatch(/^error 1006: /);
  });

  it('missing card fields off a terminal are a usage error (exit 2), not a prompt', () => {
    const r = cli(['pay', '--amount', '1.00', '--card', '4242424242424242', '--exp', `12/${cardYear()}`]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--cvv');
  });

  it('a bad card is error 1011 naming the field, without the number', () => {
    const r = cli(['pay', '--amount', '1.00', ...card('4242424242424241')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error 1011: .*cardNumber/);
  });
});

describe('subscribe, tracking, tx', () => {
  it('subscribe answers with subscriptionId and subscriptionCode', () => {
    const plan = cli([
      'plan',
      'create',
      '--name',
      'Pro',
      '--price',
      '9.99',
      '--cycle-type',
      'MONTHLY',
      '--json',
    ]).json();
    const r = cli(['subscribe', '--plan', plan.planId, '--user', 'u1', ...card('5555555555554444'), '--json']);
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ status: '200000', payAmount: '9.99' });
    expect(r.json().subscriptionCode).toBeTruthy();
  });

  describe('tracking upload', () => {
    // One paid order for the three forms: each test is one upload, so none waits on four processes.
    let order: string;
    beforeAll(() => {
      order = cli(['pay', '--amount', '1.00', ...card('4242424242424242'), '--relation', 'ship-1', '--json']).json()
        .transactionOrderId;
    });

    it('from flags', () => {
      const one = cli(['tracking', 'upload', '--order', order, '--tracking-no', 'T1', '--carrier', 'UPS', '--json']);
      expect(one.json()).toMatchObject({ successCount: 1, failedCount: 0, failedOrders: [] });
    });

    it('from CSV: by order or relation id, an unknown one listed as failed', () => {
      const csv = join(dir, 't.csv');
      writeFileSync(
        csv,
        `orderId,relationId,trackingNo,carrier,url\n${order},,T2,DHL,https://dhl.example/T2\n,ship-1,"T3",UPS,\n,nope,T4,UPS,\n`,
      );
      expect(cli(['tracking', 'upload', '--file', csv, '--json']).json()).toMatchObject({
        successCount: 2,
        failedCount: 1,
        failedOrders: ['nope'],
      });
    });

    it('from JSON: an empty entry listed as failed by its index', () => {
      const json = join(dir, 't.json');
      writeFileSync(
        json,
        JSON.stringify({ trackingList: [{ relationId: 'ship-1', trackingNo: 'T5', trackingChannel: 'UPS' }, {}] }),
      );
      expect(cli(['tracking', 'upload', '--file', json, '--json']).json()).toMatchObject({
        successCount: 1,
        failedOrders: ['#1'],
      });
    });
  });

  it('tx list filters by status; tx show masks the card', () => {
    const list = cli(['tx', 'list', '--status', 'FAILED', '--json']).json();
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((t: { status: string }) => t.status === '300000')).toBe(true);
    const shown = cli(['tx', 'show', list[0].transactionOrderId, '--json']).json();
    expect(shown.card).toBe('Visa 400000******0002');
    expect(cli(['tx', 'show', 'txn_nope']).stderr).toMatch(/^error 1007: /);
  });

  // tx list answered a bad --status as a usage error (exit 2), the other lists as 1001 (exit 1).
  it('a --status a list does not know is one-line 1001 and exit 1, in every list alike', () => {
    for (const list of [
      ['tx', 'list'],
      ['events', 'list'],
      ['email', 'list'],
      ['plan', 'list'],
      ['sub', 'list'],
    ]) {
      const r = cli([...list, '--status', 'BOGUS']);
      expect(r.status, list.join(' ')).toBe(1);
      expect(r.stderr, list.join(' ')).toMatch(/^error 1001: status: [^\n]+\n$/);
    }
  });

  it('no card number appears in any CLI output, the database or its WAL', () => {
    const pans = ['4242424242424242', '4000000000000002', '5555555555554444', '4242424242424241'];
    const all = outputs.join('\n');
    for (const pan of pans) expect(all.includes(pan), pan).toBe(false);
    for (const file of [db, `${db}-wal`].filter(existsSync)) {
      const bytes = readFileSync(file);
      for (const pan of pans) expect(bytes.includes(Buffer.from(pan)), `${pan} in ${file}`).toBe(false);
    }
  });
});

describe('pay --request makes a retry safe', () => {
  it('without --relation, the same --request twice is one transaction (the relationId is derived from it)', () => {
    const a = cli(['pay', '--amount', '2.50', ...card('4242424242424242'), '--request', 'retry-me', '--json']);
    expect(a.status).toBe(0);
    const b = cli(['pay', '--amount', '2.50', ...card('4242424242424242'), '--request', 'retry-me', '--json']);
    expect(b.status).toBe(0);
    expect(b.json().transactionOrderId).toBe(a.json().transactionOrderId);
    expect(a.json().relationId).toBe('retry-me');
  });

  it('subscribe --request likewise', () => {
    const plan = cli([
      'plan',
      'create',
      '--name',
      'Retry',
      '--price',
      '1.00',
      '--cycle-type',
      'MONTHLY',
      '--json',
    ]).json();
    const args = [
      'subscribe',
      '--plan',
      plan.planId,
      '--user',
      'u-retry',
      ...card('4242424242424242'),
      '--request',
      'sub-retry',
      '--json',
    ];
    const a = cli(args);
    const b = cli(args);
    expect(b.status).toBe(0);
    expect(b.json().transactionOrderId).toBe(a.json().transactionOrderId);
  });
});

describe('a charge that ends unpaid exits 3, so `paygate pay … && ship` never ships it (SPEC §12)', () => {
  const plan = (name: string, price: string): string =>
    cli(['plan', 'create', '--name', name, '--price', price, '--cycle-type', 'MONTHLY', '--json']).json().planId;
  // Made once: each test then runs only the commands it is about (every run is a process).
  let basic = '';
  let premium = '';
  beforeAll(() => {
    basic = plan('Basic', '1.00');
    premium = plan('Premium', '50.00');
  });

  it('`pay … && ship` ships a paid order and not a declined one', () => {
    // sh -c SCRIPT sh NODE BIN DB: the script's $1, $2, $3.
    const script = (number: string) =>
      `"$1" "$2" --db "$3" pay --amount 5.00 ${card(number).join(' ')} && echo shipped`;
    const run = (number: string) =>
      spawnSync('sh', ['-c', script(number), 'sh', process.execPath, BIN, db], {
        env: { PATH: process.env.PATH, PAYGATE_VAULT_KEY: TEST_VAULT_KEY },
        encoding: 'utf8',
      });
    expect(run('4242424242424242').stdout).toContain('shipped');
    const declined = run('4000000000000002');
    expect(declined.status).toBe(3);
    expect(declined.stdout).toContain('"status": "300000"');
    expect(declined.stdout).not.toContain('shipped');
  });

  it('subscribe with a declined card exits 3', () => {
    const r = cli(['subscribe', '--plan', basic, '--user', 'u-d', ...card('4000000000000002')]);
    expect(r.status).toBe(3);
    expect(r.json()).toMatchObject({ status: '300000', failReason: 'card_declined' });
  });

  it('sub change --now whose charge is declined exits 3; the old plan stays', () => {
    // 0341 pays while the customer is present and declines every charge made without them.
    const sub = cli(['subscribe', '--plan', basic, '--user', 'u-c', ...card('4000000000000341')]).json();
    const r = cli(['sub', 'change', sub.subscriptionId, '--plan', premium, '--now']);
    expect(r.status, r.stderr).toBe(3);
    expect(r.json()).toMatchObject({ result: 'DECLINED', planId: basic });
  });
});

describe('refused operations say why in plain words (SPEC §12)', () => {
  it('refunding a fully refunded transaction: "already fully refunded"', () => {
    const tx = cli(['pay', '--amount', '3.00', ...card('4242424242424242')]).json().transactionOrderId;
    expect(cli(['refund', '--tx', tx, '--amount', '3.00']).status).toBe(0);
    const again = cli(['refund', '--tx', tx, '--amount', '1.00']);
    expect(again.status).toBe(1);
    expect(again.stderr.trim()).toBe('error 1008: transaction already fully refunded');
  });

  it('resuming an ACTIVE subscription: "cannot resume an ACTIVE subscription"', () => {
    // The subscription of 'subscribe answers with subscriptionId and subscriptionCode' above.
    const sub = cli(['sub', 'list', '--status', 'ACTIVE', '--json']).json()[0];
    const r = cli(['sub', 'resume', sub.subscriptionId]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe('error 1008: cannot resume an ACTIVE subscription');
  });
});
