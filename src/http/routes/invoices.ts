import { RESULT_CODES } from '../../domain/errors.js';
import {
  INVOICE_DETAIL_REQUEST,
  INVOICE_LIST_REQUEST,
  invoiceDetail,
  listInvoices,
} from '../../services/documents/queries.js';
import type { ApiRoute } from '../api.js';
import { data } from '../openapi-schemas.js';

const byMerchant = { limit: 300, by: 'merchantId' } as const;

/** SPEC §17: the merchant's invoices, signed like every endpoint; another merchant's are 1007. */
export const invoiceRoutes: ApiRoute[] = [
  {
    method: 'GET',
    url: '/invoice/list',
    bucket: 'invoice-list',
    ...byMerchant,
    doc: {
      operationId: 'listInvoices',
      tag: 'Invoices',
      summary: 'Invoices of a transaction, a subscription or a user, newest first, a page at a time',
      description:
        'Name exactly one of transactionOrderId, subscriptionCode and userId (none, or two, is 1001). A transaction or subscription of another merchant is 1007.',
      request: { schema: INVOICE_LIST_REQUEST },
      data: data.invoicePage,
      errors: [RESULT_CODES.NOT_FOUND],
    },
    handle: (ctx, merchant, params) => listInvoices(ctx, merchant.id, params),
  },
  {
    method: 'GET',
    url: '/invoice/detail',
    bucket: 'invoice-detail',
    ...byMerchant,
    doc: {
      operationId: 'getInvoice',
      tag: 'Invoices',
      summary: 'One invoice by its number, with its credit notes, its page (url) and its PDF (pdfUrl)',
      request: { schema: INVOICE_DETAIL_REQUEST },
      data: data.invoice,
      errors: [RESULT_CODES.NOT_FOUND],
    },
    handle: (ctx, merchant, params) => invoiceDetail(ctx, merchant.id, params),
  },
];
