import { type DocumentKind, documentNumber } from '../../domain/invoice-numbering.js';
import type { CreditNoteRow, DocumentFilter, InvoiceRow, NewCreditNote, NewInvoice } from '../store.js';
import { creditNotes, invoices } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';
import { type Db, runThenGet } from './db.js';

/**
 * Invoices and credit notes (SPEC §17). Issuing takes the merchant's next number and writes the
 * document in the unit of work that records the charge or refund:
 *  - PostgreSQL: ONE statement, a data-modifying CTE — the UPDATE … RETURNING of the merchant's
 *    sequence feeds the INSERT, so issuing adds one round trip to a PAY, not two. The UPDATE
 *    holds the merchant's row until the unit of work ends: concurrent issuers in any process
 *    queue for it, and a unit that rolls back gives its number back (gap-free).
 *  - SQLite (no UPDATE inside a WITH): the UPDATE takes the number and the SELECT right after it
 *    reads it back (db.ts runThenGet: nothing of another issue of a renewal batch written side by
 *    side in one unit of work — writeTogether — comes between them; a re-read after an await
 *    could give two documents the later number); then a plain INSERT … VALUES is given the number, formatted by
 *    domain/invoice-numbering.ts. Not the INSERT … SELECT … RETURNING of PostgreSQL: measured on
 *    a renewal run's database, RETURNING costs SQLite 30–45 µs per statement (it stages the
 *    returned rows in a temporary table).
 * The seller's identity is copied by the same statement, so the document shows the merchant as it
 * was when its number was taken.
 */

/** `PREFIX-000042`; past six digits the number just grows (domain/invoice-numbering.ts, in SQL). */
const number = (infix: string): string =>
  `n.prefix || '${infix}' || CASE WHEN n.seq < 1000000 THEN substr(CAST(1000000 + n.seq AS TEXT), 2) ELSE CAST(n.seq AS TEXT) END`;

const SELLER = 'n.name, n.legal_name, n.address, n.tax_id, n.support_email';
const SELLER_COLUMNS = 'seller_name, legal_name, address, tax_id, support_email';

const text = (p: string): string => `CAST(@${p} AS TEXT)`;
const big = (p: string): string => `CAST(@${p} AS BIGINT)`;

/** What the taking of a number returns: the number and the seller, as `n` for the INSERTs below. */
const taken = (seqColumn: SeqColumn): string =>
  `${seqColumn} - 1 AS seq, invoice_prefix AS prefix, name, legal_name, address, tax_id, support_email`;

type SeqColumn = 'invoice_next' | 'credit_note_next';

/** The merchant's sequence moved by one (its row held until the unit of work ends). */
function bumpSql(seqColumn: SeqColumn, merchantParam = 'merchantId', when?: string): string {
  const gate = when ? ` AND ${when}` : '';
  return `UPDATE merchants SET ${seqColumn} = ${seqColumn} + 1 WHERE id = @${merchantParam}${gate}`;
}

function takeNumberSql(seqColumn: SeqColumn, merchantParam = 'merchantId', when?: string): string {
  return `${bumpSql(seqColumn, merchantParam, when)} RETURNING ${taken(seqColumn)}`;
}

/**
 * The merchant's next invoice number taken, as a data-modifying CTE `n` of a longer chain
 * (PostgreSQL): `when` gates it on an earlier part (`EXISTS (SELECT 1 FROM t)`), so a chain whose
 * charge did not move takes no number.
 */
export const takeInvoiceNumberCte = (merchantParam: string, when: string): string =>
  takeNumberSql('invoice_next', merchantParam, when);

/**
 * The INSERT of an invoice (NewInvoice's values as `@<p>key`), to be followed by `FROM n` where
 * `n` is the taken number and seller; a CTE chain gives its values a prefix of their own.
 */
export const insertInvoiceSql = (
  p: string,
): string => `INSERT INTO invoices (id, merchant_id, number, token, transaction_id,
  subscription_id, user_id, currency, total, issued_at, ${SELLER_COLUMNS}, customer, document)
  SELECT ${text(`${p}id`)}, ${text(`${p}merchantId`)}, ${number('-')}, ${text(`${p}token`)}, ${text(`${p}transactionId`)},
    ${text(`${p}subscriptionId`)}, ${text(`${p}userId`)}, ${text(`${p}currency`)}, ${big(`${p}total`)}, ${big(`${p}issuedAt`)},
    ${SELLER}, ${text(`${p}customer`)}, ${text(`${p}document`)}`;

const INSERT_INVOICE = insertInvoiceSql('');

const INSERT_CREDIT_NOTE = `INSERT INTO credit_notes (id, merchant_id, number, token, refund_id, transaction_id, invoice_id,
  invoice_number, currency, amount, issued_at, ${SELLER_COLUMNS}, customer, document)
  SELECT ${text('id')}, ${text('merchantId')}, ${number('-CN-')}, ${text('token')}, ${text('refundId')}, ${text('transactionId')},
    ${text('invoiceId')}, ${text('invoiceNumber')}, ${text('currency')}, ${big('amount')}, ${big('issuedAt')}, ${SELLER},
    ${text('customer')}, ${text('document')}`;

const ISSUE_INVOICE_PG = `WITH n AS (${takeNumberSql('invoice_next')}) ${INSERT_INVOICE} FROM n RETURNING number AS "number"`;
/**
 * Several invoices of ONE merchant in one statement (PostgreSQL; a renewal batch's, coalesced:
 * postgres/batched.ts, which gives `@rows` as JSON, each row with its place `ord` from 0): the
 * sequence moves by their count once, and each takes the number of its place. Returns each
 * written invoice's id and number.
 */
export const issueInvoicesPgSql = (rows: string): string => `WITH t AS (
    UPDATE merchants SET invoice_next = invoice_next + CAST(@count AS INTEGER) WHERE id = @merchantId
    RETURNING invoice_next - CAST(@count AS INTEGER) AS first, invoice_prefix AS prefix, name, legal_name, address, tax_id, support_email
  ), n AS (
    SELECT t.first + v.ord AS seq, t.prefix, t.name, t.legal_name, t.address, t.tax_id, t.support_email, v.*
    FROM t, ${rows}
  )
  INSERT INTO invoices (id, merchant_id, number, token, transaction_id,
    subscription_id, user_id, currency, total, issued_at, ${SELLER_COLUMNS}, customer, document)
  SELECT n.id, CAST(@merchantId AS TEXT), ${number('-')}, n.token, n."transactionId", n."subscriptionId", n."userId", n.currency,
    n.total, n."issuedAt", ${SELLER}, n.customer, n.document
  FROM n RETURNING id, number`;

const ISSUE_CREDIT_NOTE_PG = `WITH n AS (${takeNumberSql('credit_note_next')}) ${INSERT_CREDIT_NOTE} FROM n RETURNING number AS "number"`;

interface Taken {
  seq: number;
  prefix: string;
  name: string;
  legal_name: string | null;
  address: string | null;
  tax_id: string | null;
  support_email: string | null;
}

/** SQLite: the UPDATE, then the number it took read back (runThenGet: no RETURNING). */
const takeThenRead = (seqColumn: SeqColumn): [string, string] => [
  bumpSql(seqColumn),
  `SELECT ${taken(seqColumn)} FROM merchants WHERE id = @merchantId`,
];
const TAKE_INVOICE_SQLITE = takeThenRead('invoice_next');
const TAKE_CREDIT_NOTE_SQLITE = takeThenRead('credit_note_next');
const INSERT_INVOICE_ROW = insertRow(invoices);
const INSERT_CREDIT_NOTE_ROW = insertRow(creditNotes);

/** SQLite: take the number, then write the row with it (see the top of this file). */
async function issueSqlite(
  db: Db,
  kind: DocumentKind,
  args: Record<string, unknown>,
): Promise<{ number: string; row: Record<string, unknown> } | undefined> {
  const [take, read] = kind === 'invoice' ? TAKE_INVOICE_SQLITE : TAKE_CREDIT_NOTE_SQLITE;
  const n = await runThenGet<Taken>(db, take, read, args);
  if (!n) return undefined;
  const number = documentNumber(kind, n.prefix, Number(n.seq));
  const row = {
    ...args,
    number,
    sellerName: n.name,
    legalName: n.legal_name,
    address: n.address,
    taxId: n.tax_id,
    supportEmail: n.support_email,
  };
  return { number, row };
}

/** The invoice's number, or undefined when the merchant does not exist. */
export async function issueInvoice(db: Db, inv: NewInvoice): Promise<string | undefined> {
  if (db.dialect.name === 'postgres') return (await db.get<{ number: string }>(ISSUE_INVOICE_PG, { ...inv }))?.number;
  const issued = await issueSqlite(db, 'invoice', { ...inv });
  if (!issued) return undefined;
  await db.run(INSERT_INVOICE_ROW, issued.row);
  return issued.number;
}

export async function issueCreditNote(db: Db, cn: NewCreditNote): Promise<string | undefined> {
  if (db.dialect.name === 'postgres')
    return (await db.get<{ number: string }>(ISSUE_CREDIT_NOTE_PG, { ...cn }))?.number;
  const issued = await issueSqlite(db, 'credit-note', { ...cn });
  if (!issued) return undefined;
  await db.run(INSERT_CREDIT_NOTE_ROW, issued.row);
  return issued.number;
}

const INVOICE = selectFrom(invoices, 'i');
const CREDIT_NOTE = selectFrom(creditNotes, 'c');

export function getInvoiceByToken(db: Db, token: string): Promise<InvoiceRow | undefined> {
  return db.get(`${INVOICE} WHERE i.token = @token`, { token });
}

export function getInvoiceByTransaction(db: Db, transactionId: string): Promise<InvoiceRow | undefined> {
  return db.get(`${INVOICE} WHERE i.transaction_id = @transactionId`, { transactionId });
}

/** By number: of one merchant, or of every merchant that has one so numbered (the operator's CLI). */
export function invoicesByNumber(db: Db, merchantId: string | undefined, num: string): Promise<InvoiceRow[]> {
  return db.all(
    `${INVOICE} WHERE i.number = @num AND (CAST(@merchantId AS TEXT) IS NULL OR i.merchant_id = CAST(@merchantId AS TEXT))
     ORDER BY ${db.dialect.bytewise('i.merchant_id')} LIMIT 10`,
    { num, merchantId: merchantId ?? null },
  );
}

const FILTER = `(CAST(@merchantId AS TEXT) IS NULL OR i.merchant_id = CAST(@merchantId AS TEXT))
  AND (CAST(@transactionId AS TEXT) IS NULL OR i.transaction_id = CAST(@transactionId AS TEXT))
  AND (CAST(@subscriptionId AS TEXT) IS NULL OR i.subscription_id = CAST(@subscriptionId AS TEXT))
  AND (CAST(@userId AS TEXT) IS NULL OR i.user_id = CAST(@userId AS TEXT))`;

const filterArgs = (f: DocumentFilter) => ({
  merchantId: f.merchantId ?? null,
  transactionId: f.transactionId ?? null,
  subscriptionId: f.subscriptionId ?? null,
  userId: f.userId ?? null,
});

export async function countInvoices(db: Db, f: DocumentFilter): Promise<number> {
  const row = await db.get<{ n: number }>(`SELECT count(*) AS n FROM invoices i WHERE ${FILTER}`, filterArgs(f));
  return Number(row?.n ?? 0);
}

/** Newest first (by issue time, then number), one page. */
export function pageInvoices(db: Db, f: DocumentFilter, limit: number, offset: number): Promise<InvoiceRow[]> {
  return db.all(
    `${INVOICE} WHERE ${FILTER} ORDER BY i.issued_at DESC, ${db.dialect.bytewise('i.number')} DESC LIMIT @limit OFFSET @offset`,
    { ...filterArgs(f), limit, offset },
  );
}

/** An invoice's credit notes, oldest first. */
export function creditNotesOfTransaction(db: Db, transactionId: string): Promise<CreditNoteRow[]> {
  return db.all(
    `${CREDIT_NOTE} WHERE c.transaction_id = @transactionId ORDER BY c.issued_at, ${db.dialect.bytewise('c.number')}`,
    { transactionId },
  );
}

export function creditNotesByNumber(db: Db, merchantId: string | undefined, num: string): Promise<CreditNoteRow[]> {
  return db.all(
    `${CREDIT_NOTE} WHERE c.number = @num AND (CAST(@merchantId AS TEXT) IS NULL OR c.merchant_id = CAST(@merchantId AS TEXT))
     ORDER BY ${db.dialect.bytewise('c.merchant_id')} LIMIT 10`,
    { num, merchantId: merchantId ?? null },
  );
}

export function getCreditNoteByRefund(db: Db, refundId: string): Promise<CreditNoteRow | undefined> {
  return db.get(`${CREDIT_NOTE} WHERE c.refund_id = @refundId`, { refundId });
}

export function getCreditNoteByToken(db: Db, token: string): Promise<CreditNoteRow | undefined> {
  return db.get(`${CREDIT_NOTE} WHERE c.token = @token`, { token });
}

/** Conditional: a credit note that has a token keeps it (two readers racing give it one, not two). */
export async function giveCreditNoteToken(db: Db, id: string, token: string): Promise<boolean> {
  return (await db.run('UPDATE credit_notes SET token = @token WHERE id = @id AND token IS NULL', { id, token })) === 1;
}
