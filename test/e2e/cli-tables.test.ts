import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { createPlan } from '../../src/services/plans.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { uploadTracking } from '../../src/services/tracking.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import { cardYear } from '../helpers/cards.js';
import { TEST_ENGINE } from '../helpers/env.js';
import { testApp, testMerchant, type TestApp } from '../helpers/ctx.js';
import { paygatePtyRun } from '../helpers/pty.js';
import { subscribe } from '../helpers/subscriptions.js';

let app: TestApp;
let db: string;
const cli = (args: string[]) => paygate(['--db', db, ...args]);
/** An order id wider than a 60-column terminal: it may run past the edge, it is never cut. */
const LONG_ORDER = `order-${'x'.repeat(60)}-end`;
let declined = '';
let paid = '';
let subscriptionId = '';
let planId = '';
let merchantId = '';

// The shop is arranged in-process (one process, not a CLI run per row); every view below is the
// real binary on a pseudo-terminal, on the engine of the run.
beforeAll(async () => {
  app = await testApp();
  const { ctx } = app;
  merchantId = (await testMerchant(ctx, { name: 'Shop of 日本語 things' })).merchantId;
  planId = (
    await createPlan(ctx, merchantId, {
      planName: 'Gold plan for everyone',
      price: '4.50',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
      trialDays: 0,
      maxSubscriptions: 0,
      description: 'word '.repeat(40).trim(),
    })
  ).planId;
  subscriptionId = (await subscribe(ctx, merchantId, planId, { userId: 'u-1' })).subscriptionId;
  const merchant = await requireMerchant(ctx, merchantId);
  const pay = async (requestId: string, relationId: string, payAmount: string, cardNumber: string) =>
    (
      await createTransaction(ctx, merchant, {
        requestId,
        relationId,
        paymentType: 'PAY',
        payAmount,
        currency: 'USD',
        cardInfo: JSON.stringify({ cardNumber, month: '12', year: cardYear(ctx.clock.now()), cvv: '123' }),
      })
    ).transactionOrderId;
  paid = await pay('p-1', LONG_ORDER, '10.00', '4242424242424242');
  declined = await pay('p-2', 'order-2', '4.50', '4000000000000002');
  const up = await uploadTracking(ctx, merchant, {
    merchantId,
    trackingList: [{ orderId: paid, trackingNo: '1Z999AA10123456784', trackingChannel: 'UPS' }],
  });
  expect(up.successCount).toBe(1);
  await ctx.close();
  db = app.dbPath;
});
afterAll(() => app?.close());

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the colour codes being removed
const COLOUR = /\x1b\[[0-9;]*m/g;
/** Terminal lines without colour codes. */
const linesOf = (output: string): string[] =>
  output
    .replace(COLOUR, '')
    .split(/\r?\n/)
    .filter((l) => l.length > 0);

/** Words as a reader picks them out: a cut id, time or status leaves a fragment no whole view has. */
const tokensOf = (output: string): Set<string> =>
  new Set(
    linesOf(output)
      .join('\n')
      .match(/[\p{L}\p{N}_.:@/-]+/gu),
  );

/** The words of the note under a table that left columns out. */
const NOTE_WORDS = ['not', 'shown', 'at', 'columns:', 'columns', '--wide', 'shows', 'them'];

/** Every list and show command, by name; arguments read when the test runs (ids come from beforeAll). */
const COMMANDS: Record<string, () => string[]> = {
  'merchant list': () => ['merchant', 'list'],
  'plan list': () => ['plan', 'list'],
  'sub list': () => ['sub', 'list'],
  'tx list': () => ['tx', 'list'],
  'events list': () => ['events', 'list'],
  'billing list': () => ['billing', 'list', '--subscription', subscriptionId],
  'tracking list': () => ['tracking', 'list'],
  'merchant show': () => ['merchant', 'show', merchantId],
  'plan show': () => ['plan', 'show', planId],
  'sub show': () => ['sub', 'show', subscriptionId],
  'tx show': () => ['tx', 'show', paid],
  'tracking show': () => ['tracking', 'show', paid],
  report: () => ['report'],
};

/** Each command once on a terminal wide enough for everything: the words as they really are. */
const whole = new Map<string, Promise<Set<string>>>();
function wholeWords(name: string, args: string[]): Promise<Set<string>> {
  let words = whole.get(name);
  if (!words) {
    words = paygatePtyRun(['--db', db, '--wide', ...args], { cols: 400 }).then((r) => tokensOf(r.output));
    whole.set(name, words);
  }
  return words;
}

/**
 * Layout is the same code whatever the engine: SQLite runs every width; PostgreSQL one (100, where
 * words were once cut) to show that what its rows come back as (numbers, times) is laid out alike.
 */
const WIDTHS = TEST_ENGINE === 'sqlite' ? [60, 80, 100, 120] : [100];
const layoutOnly = describe.runIf(TEST_ENGINE === 'sqlite');

describe(`every list and show command fits ${WIDTHS.join(', ')} columns without cutting anything (SPEC §12)`, () => {
  for (const [name, argsOf] of Object.entries(COMMANDS)) {
    for (const cols of WIDTHS) {
      it(`${name} at ${cols} columns`, async () => {
        const args = argsOf();
        const r = await paygatePtyRun(['--db', db, ...args], { cols });
        expect(r.status, r.output).toBe(0);
        const lines = linesOf(r.output);
        // Only a single word wider than the room (the long order id) may run past the edge.
        expect(lines.filter((l) => stringWidth(l) > cols && !l.includes(LONG_ORDER))).toEqual([]);
        const words = await wholeWords(name, args);
        const broken = [...tokensOf(r.output)].filter(
          (t) => !words.has(t) && !NOTE_WORDS.includes(t) && !/^\d+$/.test(t),
        );
        expect(broken).toEqual([]);
      });
    }
  }
});

layoutOnly('columns left out, and --wide', () => {
  it('a narrow table says under it which columns it left out', async () => {
    const r = await paygatePtyRun(['--db', db, '--no-color', 'tx', 'list'], { cols: 60 });
    const text = linesOf(r.output).join('\n');
    expect(text).toMatch(/not shown at 60 columns: order, type, reason, card,\s+created\s+\(--wide\s+shows\s+them\)/);
    for (const id of [paid, declined]) expect(text).toContain(id);
    expect(text).toMatch(/│ FAILED +│/);
    expect(text).toContain('10.00 USD');
  });

  it('--wide shows every column, even wider than the terminal, and needs no note', async () => {
    const r = await paygatePtyRun(['--db', db, '--no-color', 'tx', 'list', '--wide'], { cols: 60 });
    const header = linesOf(r.output)[1] ?? '';
    for (const h of ['transaction', 'order', 'type', 'status', 'reason', 'amount', 'card', 'created'])
      expect(header).toContain(h);
    expect(r.output).not.toContain('not shown');
  });

  it('free text wraps at spaces: a plan name over lines, whole words each', async () => {
    const r = await paygatePtyRun(['--db', db, '--no-color', 'plan', 'list'], { cols: 60 });
    const cells = linesOf(r.output).map((l) => l.split('│')[2]?.trim() ?? '');
    expect(cells).toEqual(expect.arrayContaining(['Gold', 'plan for', 'everyone']));
  });

  it('--json is the same on a terminal as off one', async () => {
    const r = await paygatePtyRun(['--db', db, '--json', 'tx', 'list'], { cols: 60 });
    expect(JSON.parse(r.output.replace(/\r\n/g, '\n'))).toEqual(cli(['tx', 'list']).json());
  });
});

layoutOnly('tables and detail views', () => {
  it('a wide terminal shows one line per row, without rules between rows', async () => {
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
  it('a declined transaction reads 300000 FAILED (card_declined); a list names the status, the reason in its own column', async () => {
    const r = await paygatePtyRun(['--db', db, 'tx', 'show', declined], { cols: 120 });
    expect(linesOf(r.output).join('\n')).toMatch(/status +300000 FAILED \(card_declined\)/);
    const list = linesOf((await paygatePtyRun(['--db', db, 'tx', 'list'], { cols: 250 })).output).join('\n');
    expect(list).toMatch(/│ FAILED +│ card_declined +│/);
    expect(list).toMatch(/│ SUCCEEDED +│/);
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
