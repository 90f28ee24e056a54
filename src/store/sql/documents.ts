import type { CreditNoteRow, DocumentFilter, InvoiceRow, NewCreditNote, NewInvoice } from '../store.js';
import { creditNotes, invoices } from '../tables/index.js';
import { selectFrom } from '../tables/rows.js';
import type { Db } from './db.js';

/**
 * Invoices and credit notes (SPEC §17). Issuing takes the merchant's next number and writes the
 * document in the unit of work that records the charge or refund:
 *  - PostgreSQL: ONE statement, a data-modifying CTE — the UPDATE … RETURNING of the merchant's
 *    sequence feeds the INSERT, so issuing adds one round trip to a PAY, not two. The UPDATE
 *    holds the merchant's row until the unit of work ends: concurrent issuers in any process
 *    queue for it, and a unit that rolls back gives its number back (gap-free).
 *  - SQLite (no UPDATE inside a WITH): the UPDATE … RETURNING takes the number, and the INSERT is
 *    given what it returned. Not re-read from the merchant's row: a renewal batch writes its
 *    records side by side in one unit of work (writeTogether), so another issue's UPDATE may come
 *    between the two statements, and a re-read would give both documents the later number.
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

/** What the SQLite UPDATE returns besides `seq`, passed to its INSERT as `@n_<column>`. */
const TAKEN_NAMES = ['prefix', 'name', 'legal_name', 'address', 'tax_id', 'support_email'] as const;

type SeqColumn = 'invoice_next' | 'credit_note_next';

function takeNumberSql(seqColumn: SeqColumn, merchantParam = 'merchantId', when?: string): string {
  const gate = when ? ` AND ${when}` : '';
  return `UPDATE merchants SET ${seqColumn} = ${seqColumn} + 1 WHERE id = @${merchantParam}${gate} RETURNING ${taken(seqColumn)}`;
}

/**
 * The merchant's next invoice number taken, as a data-modifying CTE `n` of a longer chain
 * (PostgreSQL): `when` gates it on an earlier part (`EXISTS (SELECT 1 FROM t)`), so a chain whose
 * charge did not move takes no number.
 */
export const takeInvoiceNumberCte = (merchantParam: string, when: string): string =>
  takeNumberSql('invoice_next', merchantParam, when);

/**
 * On SQLite the INSERT gets the number its own UPDATE … RETURNING took, not a re-read of the
 * merchant row: invoices issued side by side in one unit of work (a renewal batch) would otherwise
 * read each other's increments and clash on a number.
 */
function issueSql(db: Db, seqColumn: SeqColumn, insert: string): string[] {
  if (db.dialect.name === 'postgres')
    return [`WITH n AS (${takeNumberSql(seqColumn)}) ${insert} FROM n RETURNING number AS "number"`];
  const given = `SELECT CAST(@n_seq AS BIGINT) AS seq, ${TAKEN_NAMES.map((c) => `CAST(@n_${c} AS TEXT) AS ${c}`).join(', ')}`;
  return [takeNumberSql(seqColumn), `${insert} FROM (${given}) n RETURNING number AS "number"`];
}

/** A charge with no customer of its own (a renewal) bills the one of the subscription's first invoice. */
const customer = (p: string): string => `COALESCE(${text(`${p}customer`)}, (SELECT p.customer FROM invoices p
    WHERE p.subscription_id = ${text(`${p}subscriptionId`)} ORDER BY p.issued_at LIMIT 1), '{"addressLines":[]}')`;

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
    ${SELLER}, ${customer(p)}, ${text(`${p}document`)}`;

const INSERT_INVOICE = insertInvoiceSql('');

const INSERT_CREDIT_NOTE = `INSERT INTO credit_notes (id, merchant_id, number, token, refund_id, transaction_id, invoice_id,
  invoice_number, currency, amount, issued_at, ${SELLER_COLUMNS}, customer, document)
  SELECT ${text('id')}, ${text('merchantId')}, ${number('-CN-')}, ${text('token')}, ${text('refundId')}, ${text('transactionId')},
    ${text('invoiceId')}, ${text('invoiceNumber')}, ${text('currency')}, ${big('amount')}, ${big('issuedAt')}, ${SELLER},
    ${text('customer')}, ${text('document')}`;

async function issue(db: Db, statements: string[], args: Record<string, unknown>): Promise<string | undefined> {
  const last = statements.at(-1);
  if (last === undefined) return undefined;
  let given: Record<string, unknown> = {};
  const first = statements.length > 1 ? statements[0] : undefined;
  if (first !== undefined) {
    const taken = await db.get<Record<string, unknown>>(first, args);
    if (!taken) return undefined;
    given = Object.fromEntries(Object.entries(taken).map(([k, v]) => [`n_${k}`, v]));
  }
  return (await db.get<{ number: string }>(last, { ...args, ...given }))?.number;
}

/** The invoice's number, or undefined when the merchant does not exist. */
export function issueInvoice(db: Db, inv: NewInvoice): Promise<string | undefined> {
  return issue(db, issueSql(db, 'invoice_next', INSERT_INVOICE), { ...inv });
}

export function issueCreditNote(db: Db, cn: NewCreditNote): Promise<string | undefined> {
  return issue(db, issueSql(db, 'credit_note_next', INSERT_CREDIT_NOTE), { ...cn });
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
