import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardYear } from '../helpers/cards.js';
import { paygate } from '../helpers/cli.js';
import { havePoppler, pdfText } from '../helpers/pdf-text.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';

/** `paygate invoice list|show|pdf` (SPEC §17) on the run's engine, through the real binary. */
let shopDb: ShopDatabase;
let db: string;
let dir: string;
let txn: string;
let number: string;

const cli = (...args: string[]) => paygate(['--db', db, ...args]);
const card = ['--card', '4242424242424242', '--exp', `12/${cardYear()}`, '--cvv', '123'];

beforeAll(async () => {
  shopDb = await shopDatabase({ prefix: 'paygate-cli-invoices-' });
  ({ db, dir } = shopDb);
  expect(cli('merchant', 'create', '--name', 'Tea Shop', '--json').status).toBe(0);
  const items = JSON.stringify([{ name: 'Green tea', price: '12.00', num: '2' }]);
  const paid = cli('pay', '--amount', '24.00', ...card, '--items', items, '--json');
  expect(paid.status).toBe(0);
  txn = paid.json().transactionOrderId;
  expect(cli('refund', '--tx', txn, '--amount', '4.00', '--json').status).toBe(0);
}, 120_000);
afterAll(() => shopDb.drop());

describe('paygate invoice', () => {
  it('lists the invoice of a paid transaction, as JSON off a terminal', () => {
    const r = cli('invoice', 'list', '--tx', txn);
    expect(r.status).toBe(0);
    const [inv] = r.json();
    expect(inv).toMatchObject({
      invoiceNumber: 'INV-000001',
      transactionOrderId: txn,
      total: '24.00',
      currency: 'USD',
    });
    number = inv.invoiceNumber;
  });

  // One CLI run per test: each starts a process, slow on a loaded machine.
  it('lists every invoice without a filter', () => {
    expect(cli('invoice', 'list').json()).toHaveLength(1);
  });

  it('shows an invoice with its credit note', () => {
    const inv = cli('invoice', 'show', 'INV-000001').json();
    expect(inv).toMatchObject({
      invoiceNumber: 'INV-000001',
      lines: [{ description: 'Green tea', quantity: '2', unitPrice: '12.00', amount: '24.00' }],
      creditNotes: [{ creditNoteNumber: 'INV-CN-000001', amount: '4.00' }],
    });
  });

  it('shows a credit note by its own number', () => {
    expect(cli('invoice', 'show', 'INV-CN-000001').json()).toMatchObject({
      creditNoteNumber: 'INV-CN-000001',
      invoiceNumber: 'INV-000001',
    });
  });

  it('writes the invoice as a PDF with its number, lines and total', () => {
    const out = join(dir, 'invoice.pdf');
    const r = cli('invoice', 'pdf', number || 'INV-000001', '--out', out, '--json');
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ number: 'INV-000001', file: out });
    const pdf = readFileSync(out);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    if (havePoppler) {
      const text = pdfText(pdf);
      for (const word of ['INV-000001', 'Green tea', '24.00 USD', 'Tea Shop']) expect(text).toContain(word);
    }
    // The customer's name, address and email are in it: its owner's only, whatever the umask.
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });

  it('keeps an existing file, with a one-line error', () => {
    const out = join(dir, 'kept.pdf');
    writeFileSync(out, 'mine');
    const r = cli('invoice', 'pdf', 'INV-000001', '--out', out);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/exists.*--force/);
    expect(readFileSync(out, 'utf8')).toBe('mine');
  });

  it('replaces an existing file with --force', () => {
    const out = join(dir, 'replaced.pdf');
    writeFileSync(out, 'mine');
    expect(cli('invoice', 'pdf', 'INV-000001', '--out', out, '--force').status).toBe(0);
    expect(readFileSync(out).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('answers an unknown number with 1007, one line', () => {
    const r = cli('invoice', 'show', 'INV-999999');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/^error 1007: invoice not found\n$/);
  });

  it('refuses two filters at once, in one line', () => {
    const two = cli('invoice', 'list', '--tx', txn, '--user', 'u');
    expect(two.status).not.toBe(0);
    expect(two.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('answers an unknown transaction with 1007', () => {
    expect(cli('invoice', 'list', '--tx', 'txn_nope').stderr).toMatch(/^error 1007: /);
  });

  it('refuses a PDF onto a directory, or under a file, with a one-line 1001 naming --out', () => {
    for (const out of [dir, join(dir, 'kept-too.pdf', 'x.pdf')]) {
      writeFileSync(join(dir, 'kept-too.pdf'), 'mine');
      for (const extra of [[], ['--force']]) {
        const r = cli('invoice', 'pdf', 'INV-000001', '--out', out, ...extra);
        expect(r.status).toBe(1);
        expect(r.stderr).toMatch(/^error 1001: out: .*(is a directory|is not a directory)[^\n]*\n$/);
      }
    }
    expect(readFileSync(join(dir, 'kept-too.pdf'), 'utf8')).toBe('mine');
  });

  it('refuses a PDF into a directory that does not exist, writing nothing', () => {
    const out = join(dir, 'missing', 'x.pdf');
    const r = cli('invoice', 'pdf', 'INV-000001', '--out', out);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/directory does not exist/);
    expect(existsSync(out)).toBe(false);
  });
});
