import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';
import { paygatePtyRun } from '../helpers/pty.js';
import { cardYear } from '../helpers/cards.js';

let shopDb: ShopDatabase;
let db: string;
const cli = (args: string[]) => paygate(['--db', db, ...args]);
const card = (n: string) => ['--card', n, '--exp', `12/${cardYear()}`, '--cvv', '123'];
let declined = '';
let subscriptionId = '';

beforeAll(async () => {
  shopDb = await shopDatabase();
  db = shopDb.db;
  cli(['merchant', 'create', '--name', 'Shop']);
  const plan = cli([
    'plan',
    'create',
    '--name',
    'Gold',
    '--price',
    '4.5',
    '--cycle-type',
    'MONTHLY',
    '--description',
    'word '.repeat(40).trim(),
  ]).json();
  subscriptionId = cli(['subscribe', '--plan', plan.planId, '--user', 'u-1', ...card('4242424242424242')]).json()
    .subscriptionId;
  cli(['pay', '--amount', '10', ...card('4242424242424242'), '--relation', `order-${'x'.repeat(60)}-end`]);
  declined = cli(['pay', '--amount', '4.5', ...card('4000000000000002')]).json().transactionOrderId;
});
afterAll(() => shopDb.drop());

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the colour codes being removed
const COLOUR = /\x1b\[[0-9;]*m/g;
/** Terminal lines without colour codes. */
const linesOf = (output: string): string[] =>
  output
    .replace(COLOUR, '')
    .split(/\r?\n/)
    .filter((l) => l.length > 0);

describe('tables fit the terminal', () => {
  for (const cols of [80, 120]) {
    it(`tx list and sub list at ${cols} columns: no line wider than the terminal`, async () => {
      for (const args of [
        ['tx', 'list'],
        ['sub', 'list'],
        ['plan', 'list'],
        ['events', 'list'],
      ]) {
        const r = await paygatePtyRun(['--db', db, ...args], { cols });
        expect(r.status).toBe(0);
        const tooWide = linesOf(r.output).filter((l) => [...l].length > cols);
        expect(tooWide).toEqual([]);
      }
    });
  }

  it('ids are shortened in the middle (head and tail kept), not cut at the end', async () => {
    const r = await paygatePtyRun(['--db', db, 'tx', 'list'], { cols: 100 });
    const shown = linesOf(r.output).join('\n');
    expect(shown).not.toContain(declined);
    expect(shown).toContain(`${declined.slice(0, 4)}`);
    expect(shown).toMatch(new RegExp(`txn_[0-9A-Z]*…[0-9A-Z]*${declined.slice(-3)}`));
    expect(shown).toMatch(/order[-x]*…x*-end/);
  });

  it('a wide terminal shows whole ids and one line per row, without rules between rows', async () => {
    const r = await paygatePtyRun(['--db', db, 'tx', 'list'], { cols: 250 });
    const lines = linesOf(r.output);
    expect(lines.join('\n')).toContain(declined);
    // top, header, header rule, 3 rows, bottom, footer
    expect(lines).toHaveLength(8);
  });

  it('a detail view is aligned key/value lines: no separator under every row; long text wraps under itself', async () => {
    const r = await paygatePtyRun(['--db', db, 'sub', 'show', subscriptionId], { cols: 80 });
    const lines = linesOf(r.output);
    expect(lines.some((l) => /^[├─┼]/.test(l) || l.includes('───'))).toBe(false);
    expect(lines.every((l) => [...l].length <= 80)).toBe(true);
    const desc = lines.findIndex((l) => l.startsWith('planDescription'));
    expect(desc).toBeGreaterThanOrEqual(0);
    expect(lines[desc + 1]).toMatch(/^ +word/);
  });
});

describe('statuses are shown with their name, money with its exponent', () => {
  it('a declined transaction reads 300000 FAILED (card_declined)', async () => {
    const r = await paygatePtyRun(['--db', db, 'tx', 'show', declined], { cols: 120 });
    expect(linesOf(r.output).join('\n')).toMatch(/status +300000 FAILED \(card_declined\)/);
    const list = await paygatePtyRun(['--db', db, 'tx', 'list'], { cols: 250 });
    expect(list.output).toContain('300000 FAILED (card_declined)');
    expect(list.output).toContain('200000 SUCCEEDED');
  });

  it('amounts print 4.50, never 4.5, in tables', async () => {
    for (const args of [
      ['plan', 'list'],
      ['sub', 'list'],
      ['tx', 'list'],
    ]) {
      const r = await paygatePtyRun(['--db', db, ...args], { cols: 250 });
      expect(r.output).toContain('4.50');
      expect(r.output).not.toMatch(/[^.\d]4\.5[^0\d]/);
    }
  });

  it('JSON amounts are strings everywhere: the plan price, subscription amounts, billing records', () => {
    expect(cli(['plan', 'list']).json()[0].price).toBe('4.50');
    const sub = cli(['sub', 'show', subscriptionId]).json();
    expect(sub.amount).toBe('4.50');
    expect(sub.totalPaid).toBe('4.50');
    const billing = cli(['billing', 'list', '--subscription', subscriptionId]).json();
    expect(billing.records[0].amount).toBe('4.50');
    expect(cli(['tx', 'show', declined]).json().payAmount).toBe('4.50');
  });
});
