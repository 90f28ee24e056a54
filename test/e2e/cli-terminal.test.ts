import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';
import { paygatePty, paygatePtyRun } from '../helpers/pty.js';
import { cardYear } from '../helpers/cards.js';

/** An SGR sequence: what colour (and bold/dim) is made of. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the sequence
const SGR = /\x1b\[[0-9;]*m/;

let shopDb: ShopDatabase;
let db: string;
const cli = (args: string[]) => paygate(['--db', db, ...args]);

beforeAll(async () => {
  shopDb = await shopDatabase();
  db = shopDb.db;
  expect(cli(['merchant', 'create', '--name', 'Shop']).status).toBe(0);
});
afterAll(() => shopDb.drop());

describe('colour follows NO_COLOR, FORCE_COLOR and --no-color', () => {
  const list = (env: NodeJS.ProcessEnv, extra: string[] = []) =>
    paygatePtyRun(['--db', db, 'merchant', 'list', ...extra], { env });

  it('a terminal gets colour by default', async () => {
    expect((await list({})).output).toMatch(SGR);
  });
  it('NO_COLOR=1 turns it off', async () => {
    const r = await list({ NO_COLOR: '1' });
    expect(r.status).toBe(0);
    expect(r.output).toContain('Shop');
    expect(r.output).not.toMatch(SGR);
  });
  it('an empty NO_COLOR is no request (no-color.org)', async () => {
    expect((await list({ NO_COLOR: '' })).output).toMatch(SGR);
  });
  it('--no-color turns it off, after the command too', async () => {
    expect((await list({}, ['--no-color'])).output).not.toMatch(SGR);
    expect((await paygatePtyRun(['--no-color', '--db', db, 'merchant', 'list'])).output).not.toMatch(SGR);
  });
  it('FORCE_COLOR=0 turns it off; FORCE_COLOR=1 colours a terminal that announces none (TERM=dumb), even with NO_COLOR', async () => {
    expect((await list({ FORCE_COLOR: '0' })).output).not.toMatch(SGR);
    expect((await list({ TERM: 'dumb' })).output).not.toMatch(SGR);
    expect((await list({ TERM: 'dumb', FORCE_COLOR: '1' })).output).toMatch(SGR);
    expect((await list({ NO_COLOR: '1', FORCE_COLOR: '1' })).output).toMatch(SGR);
  });
  it('--no-color beats FORCE_COLOR', async () => {
    expect((await list({ FORCE_COLOR: '3' }, ['--no-color'])).output).not.toMatch(SGR);
  });
});

describe('prompts: each value checked as it is typed, Ctrl-C leaves quietly', () => {
  const txCount = () => cli(['tx', 'list']).json().length;

  it('Ctrl-C at a prompt exits 130 without an error line, and writes nothing', async () => {
    const before = txCount();
    const s = paygatePty(['--db', db, 'pay']);
    await s.waitFor('Amount');
    s.type('\x03');
    expect(await s.exit).toBe(130);
    expect(s.output()).not.toMatch(/error|SIGINT/i);
    expect(txCount()).toBe(before);
  });

  it('an amount 12.5x is refused at its own prompt in plain words, before the card is asked', async () => {
    const s = paygatePty(['--db', db, '--no-color', 'pay']);
    await s.waitFor('Amount');
    s.type('12.5x\r');
    await s.waitFor('must be a decimal string of at most 10 digits and 2 decimals');
    expect(s.output()).not.toContain('Card number');
    expect(s.output()).not.toContain('(12,2)');
    // Correct it in place: the prompt goes on to the card.
    for (let i = 0; i < 5; i++) s.type('\x7f');
    s.type('12.50\r');
    await s.waitFor('Card number');
    s.type('4242424242424241\r');
    await s.waitFor('typo');
    s.type('\x03');
    expect(await s.exit).toBe(130);
  });

  it('a bad --amount flag is refused before any card prompt (1001 naming the field)', async () => {
    const r = await paygatePtyRun(['--db', db, 'pay', '--amount', '12.5x']);
    expect(r.status).toBe(1);
    expect(r.output).toContain('error 1001: payAmount: must be a decimal string of at most 10 digits and 2 decimals');
    expect(r.output).not.toContain('Card number');
  });

  it('a whole prompted payment goes through', async () => {
    const s = paygatePty(['--db', db, '--no-color', 'pay']);
    for (const [ask, answer] of [
      ['Amount', '3.25'],
      ['Card number', '4242 4242 4242 4242'],
      ['Expiry', `13/${cardYear()}`],
      ['month is 1 to 12', `\x7f\x7f\x7f\x7f\x7f\x7f\x7f12/${cardYear()}`],
      ['CVV', '12'],
      ['3 or 4 digits', '3'],
    ] as const) {
      await s.waitFor(ask);
      s.type(`${answer}\r`);
    }
    expect(await s.exit).toBe(0);
    expect(s.output()).toMatch(/200000/);
    expect(s.output()).toContain('3.25');
    expect(s.output()).not.toContain('4242424242424242');
  });
});

describe('what cannot be undone is confirmed on a terminal, never off one', () => {
  const card = ['--card', '4242424242424242', '--exp', `12/${cardYear()}`, '--cvv', '123'];
  let subId = '';
  let txId = '';
  beforeAll(() => {
    const plan = cli(['plan', 'create', '--name', 'Gold', '--price', '9.99', '--cycle-type', 'MONTHLY']).json();
    subId = cli(['subscribe', '--plan', plan.planId, '--user', 'u-1', ...card]).json().subscriptionId;
    txId = cli(['pay', '--amount', '10.00', ...card]).json().transactionOrderId;
  });

  it('sub cancel: answering no changes nothing (exit 1); yes cancels', async () => {
    const no = paygatePty(['--db', db, 'sub', 'cancel', subId]);
    await no.waitFor('Cancel subscription');
    no.type('n\r');
    expect(await no.exit).toBe(1);
    expect(no.output()).toContain('nothing changed');
    expect(cli(['sub', 'show', subId]).json().status).toBe('ACTIVE');
    const yes = paygatePty(['--db', db, 'sub', 'cancel', subId]);
    await yes.waitFor('Cancel subscription');
    yes.type('y\r');
    expect(await yes.exit).toBe(0);
    expect(cli(['sub', 'show', subId]).json().status).toBe('CANCELLED');
  });

  it('refund asks with the amount and the transaction; --yes skips the question', async () => {
    const no = paygatePty(['--db', db, 'refund', '--tx', txId, '--amount', '1.00']);
    await no.waitFor(`Refund 1.00 USD of ${txId}`);
    no.type('\r'); // the default is no
    expect(await no.exit).toBe(1);
    expect(cli(['tx', 'show', txId]).json().status).toBe('200000');
    const r = await paygatePtyRun(['--db', db, 'refund', '--tx', txId, '--amount', '1.00', '--yes']);
    expect(r.status).toBe(0);
    expect(r.output).not.toContain('Refund 1.00');
    expect(cli(['tx', 'show', txId]).json().status).toBe('400010');
  });

  it('merchant update --disable asks; --enable does not', async () => {
    const id = cli(['merchant', 'list']).json()[0].merchantId;
    const no = paygatePty(['--db', db, 'merchant', 'update', id, '--disable']);
    await no.waitFor('Disable merchant');
    no.type('n\r');
    expect(await no.exit).toBe(1);
    expect(cli(['merchant', 'show', id]).json().status).toBe('ACTIVE');
    expect((await paygatePtyRun(['--db', db, 'merchant', 'update', id, '--disable', '-y'])).status).toBe(0);
    expect(cli(['merchant', 'show', id]).json().status).toBe('DISABLED');
    expect((await paygatePtyRun(['--db', db, 'merchant', 'update', id, '--enable'])).status).toBe(0);
    expect(cli(['merchant', 'show', id]).json().status).toBe('ACTIVE');
  });

  it('off a terminal nothing is asked: the action runs', () => {
    const r = cli(['refund', '--tx', txId, '--amount', '1.00']);
    expect(r.status).toBe(0);
    expect(r.json().payAmount).toBe('1.00');
  });
});
