import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articleText, havePoppler, pdfText, words } from '../helpers/pdf-text.js';
import { client, raw, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';

/** SPEC §17 over HTTP: /invoice/list and /invoice/detail (signed), the hosted page and its PDF. */
let shop: ServedShop;
let v1: TestMerchant;
let v2: TestMerchant;
let n = 0;

beforeAll(async () => {
  shop = await servedShop({
    merchants: [
      [1, 'V1 Shop'],
      [2, 'V2 Shop'],
    ],
  });
  [v1, v2] = shop.merchants as [TestMerchant, TestMerchant];
  // Numbers are per merchant: a prefix of its own makes v1's numbers ones v2 never has.
  expect(shop.cli(['merchant', 'update', v1.merchantId, '--invoice-prefix', 'ONE']).status).toBe(0);
});
afterAll(() => shop?.stop());

const card = JSON.stringify({
  cardNumber: '4242424242424242',
  month: '12',
  year: String(new Date().getUTCFullYear() + 2),
  cvv: '123',
});

async function pay(m: TestMerchant): Promise<string> {
  n++;
  const r = await client(shop.url, m).post(`/payment/${m.apiKey}/transaction`, {
    requestId: `inv-${n}`,
    relationId: `order-${n}`,
    paymentType: 'PAY',
    payAmount: '25.50',
    currency: 'USD',
    cardInfo: card,
    items: JSON.stringify([{ name: 'Tea pot', price: '25.50' }]),
    billingAddress: JSON.stringify({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }),
  });
  expect(r.body.data.status).toBe('200000');
  return r.body.data.transactionOrderId as string;
}

describe('invoices over HTTP (happy)', () => {
  it.each([1, 2])('lists a charge’s invoice and shows it with its credit notes, signature v%i', async (version) => {
    const m = version === 1 ? v1 : v2;
    const c = client(shop.url, m);
    const txn = await pay(m);
    const list = await c.get('/invoice/list', { transactionOrderId: txn });
    expect(list.body).toMatchObject({ rtn_code: '0000', data: { total: 1, pageNum: 1, pageSize: 10 } });
    const [inv] = list.body.data.records;
    expect(inv).toMatchObject({ transactionOrderId: txn, total: '25.50', currency: 'USD' });
    expect(inv.invoiceNumber).toMatch(/^(ONE|INV)-\d{6}$/);
    const refund = await c.post(`/payment/${m.apiKey}/refund`, { transactionOrderId: txn, refundAmount: '5.50' });
    expect(refund.body.rtn_code).toBe('0000');
    const detail = await c.get('/invoice/detail', { invoiceNumber: inv.invoiceNumber });
    expect(detail.body.data).toMatchObject({
      invoiceNumber: inv.invoiceNumber,
      url: inv.url,
      pdfUrl: inv.pdfUrl,
      creditNotes: [{ invoiceNumber: inv.invoiceNumber, amount: '5.50', currency: 'USD' }],
    });
    expect(detail.body.data.creditNotes[0].creditNoteNumber).toMatch(/^(ONE|INV)-CN-\d{6}$/);
  });

  it('serves the hosted page with the hosted pages’ policy, and its PDF with the same words', async () => {
    const txn = await pay(v2);
    const [inv] = (await client(shop.url, v2).get('/invoice/list', { transactionOrderId: txn })).body.data.records;
    const page = await raw(inv.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.text).toContain(inv.invoiceNumber);
    expect(page.text).toContain('Ada Lovelace');
    const pdf = await fetch(inv.pdfUrl);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toContain(`${inv.invoiceNumber}.pdf`);
    const bytes = Buffer.from(await pdf.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    if (havePoppler) expect(words(pdfText(bytes))).toEqual(expect.arrayContaining(words(articleText(page.text))));
  });

  it('answers HEAD on an invoice’s page and PDF as GET, without the body; an unknown link is 404', async () => {
    const txn = await pay(v2);
    const [inv] = (await client(shop.url, v2).get('/invoice/list', { transactionOrderId: txn })).body.data.records;
    for (const [url, type] of [
      [inv.url, 'text/html; charset=utf-8'],
      [inv.pdfUrl, 'application/pdf'],
    ]) {
      const r = await fetch(url, { method: 'HEAD' });
      expect([r.status, r.headers.get('content-type')], url).toEqual([200, type]);
      expect(await r.text()).toBe('');
    }
    expect((await fetch(`${shop.url}/invoice/${'A'.repeat(42)}`, { method: 'HEAD' })).status).toBe(404);
  });

  it('marks a sandbox charge’s invoice as test mode on its page and in its PDF', async () => {
    const txn = await pay(v2);
    const [inv] = (await client(shop.url, v2).get('/invoice/list', { transactionOrderId: txn })).body.data.records;
    const note = 'Sandbox — test mode: no real money moved.';
    expect(articleText((await raw(inv.url)).text)).toContain(note);
    const bytes = Buffer.from(await (await fetch(inv.pdfUrl)).arrayBuffer());
    if (havePoppler) expect(words(pdfText(bytes)).join(' ')).toContain(words(note).join(' '));
  });
});

describe('credit notes over HTTP (happy)', () => {
  async function refunded(): Promise<{ invoiceNumber: string; note: Record<string, string> }> {
    const c = client(shop.url, v2);
    const txn = await pay(v2);
    expect(
      (await c.post(`/payment/${v2.apiKey}/refund`, { transactionOrderId: txn, refundAmount: '5.50' })).body.rtn_code,
    ).toBe('0000');
    const [inv] = (await c.get('/invoice/list', { transactionOrderId: txn })).body.data.records;
    const detail = await c.get('/invoice/detail', { invoiceNumber: inv.invoiceNumber });
    return { invoiceNumber: inv.invoiceNumber, note: detail.body.data.creditNotes[0] };
  }

  it('gives each credit note in the detail its own page and PDF link', async () => {
    const { note } = await refunded();
    expect(note.url).toMatch(new RegExp(`^${shop.url}/credit-note/[0-9A-HJKMNP-TV-Z]{10}[A-Za-z0-9_-]{32}$`));
    expect(note.pdfUrl).toBe(`${note.url}/pdf`);
  });

  it('serves the credit note page with the hosted pages’ policy, and its PDF with exactly its words', async () => {
    const { invoiceNumber, note } = await refunded();
    const page = await raw(note.url ?? '');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('cache-control')).toBe('private, no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const text = words(articleText(page.text)).join(' ');
    expect(text).toContain(`Credit note ${note.creditNoteNumber}`);
    expect(text).toContain(`Refund of invoice ${invoiceNumber}`);
    expect(page.text).toContain(`href="${note.pdfUrl}"`);
    const pdf = await fetch(note.pdfUrl ?? '');
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('cache-control')).toBe('private, no-store');
    expect(pdf.headers.get('content-disposition')).toContain(`${note.creditNoteNumber}.pdf`);
    const bytes = Buffer.from(await pdf.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    if (havePoppler) expect(words(pdfText(bytes))).toEqual(words(articleText(page.text)));
  });
});

describe('invoices over HTTP (errors)', () => {
  it("answers another merchant's invoice 1007", async () => {
    const txn = await pay(v1);
    const [inv] = (await client(shop.url, v1).get('/invoice/list', { transactionOrderId: txn })).body.data.records;
    const other = await client(shop.url, v2).get('/invoice/detail', { invoiceNumber: inv.invoiceNumber });
    expect(other.body).toMatchObject({ rtn_code: '1007', success: false });
    const list = await client(shop.url, v2).get('/invoice/list', { transactionOrderId: txn });
    expect(list.body.rtn_code).toBe('1007');
  });

  it('refuses a list without a filter, or with two, and a bad pageSize with 1001', async () => {
    const c = client(shop.url, v2);
    expect((await c.get('/invoice/list', {})).body.rtn_code).toBe('1001');
    expect((await c.get('/invoice/list', { userId: 'u', subscriptionCode: 'x' })).body.rtn_code).toBe('1001');
    const big = await c.get('/invoice/list', { userId: 'u', pageSize: '101' });
    expect(big.body).toMatchObject({ rtn_code: '1001' });
    expect(big.body.rtn_msg).toContain('pageSize');
    expect((await c.get('/invoice/detail', {})).body.rtn_code).toBe('1001');
  });

  it('refuses an unsigned request with 1002', async () => {
    const r = await client(shop.url, v2).get('/invoice/list', { userId: 'u' }, { sign: false });
    expect(r.body.rtn_code).toBe('1002');
  });

  it('answers an unknown credit note link with an HTML page, 404, for the page and the PDF', async () => {
    for (const path of [
      '/credit-note/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      '/credit-note/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/pdf',
      '/credit-note/x',
    ]) {
      const r = await raw(`${shop.url}${path}`);
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toContain('text/html');
      expect(r.text).toContain('This credit note is not available');
    }
  });

  it("does not open a credit note with its invoice's link, nor an invoice with a credit note's", async () => {
    const c = client(shop.url, v2);
    const txn = await pay(v2);
    await c.post(`/payment/${v2.apiKey}/refund`, { transactionOrderId: txn, refundAmount: '1.00' });
    const [inv] = (await c.get('/invoice/list', { transactionOrderId: txn })).body.data.records;
    const [note] = (await c.get('/invoice/detail', { invoiceNumber: inv.invoiceNumber })).body.data.creditNotes;
    const invoiceToken = String(inv.url).split('/').pop();
    const noteToken = String(note.url).split('/').pop();
    expect((await raw(`${shop.url}/credit-note/${invoiceToken}`)).status).toBe(404);
    expect((await raw(`${shop.url}/invoice/${noteToken}`)).status).toBe(404);
  });

  it('answers an unknown invoice link with an HTML page, 404, for the page and the PDF', async () => {
    for (const path of [
      '/invoice/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      '/invoice/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/pdf',
      '/invoice/x',
    ]) {
      const r = await raw(`${shop.url}${path}`);
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toContain('text/html');
    }
  });
});
