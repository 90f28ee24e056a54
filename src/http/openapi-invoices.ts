import { z } from 'zod';

/** The API's invoice views (services/documents/read.ts) as schemas for the OpenAPI document. */

const time = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
  .meta({ description: 'yyyy-MM-dd HH:mm:ss in the time zone paygate is configured with' });
const money = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/)
  .meta({ description: "A decimal string with the currency's decimals, as payAmount", examples: ['19.99'] });
const currency = z
  .string()
  .regex(/^[A-Z]{3}$/)
  .meta({ description: 'ISO 4217 code', examples: ['USD'] });

const seller = z.object({
  name: z.string().meta({ description: "The merchant's name" }),
  legalName: z.string().optional(),
  address: z.string().optional().meta({ description: 'Lines separated by newlines' }),
  taxId: z.string().optional(),
  supportEmail: z.string().optional(),
});

const customer = z.object({
  name: z.string().optional(),
  addressLines: z.array(z.string()),
  email: z.string().optional(),
});

const line = z.object({
  description: z.string(),
  periodFrom: time.optional().meta({ description: "A subscription charge's service period: from" }),
  periodTo: time.optional().meta({ description: '…to (the next renewal)' }),
  quantity: z.string().optional(),
  unitPrice: money.optional(),
  amount: money
    .optional()
    .meta({ description: 'Negative for a credit or a discount; absent for an item listed without a price' }),
});

export const creditNoteSchema = z.object({
  creditNoteNumber: z.string().meta({ examples: ['INV-CN-000001'] }),
  invoiceNumber: z.string().optional().meta({ description: 'Absent for a charge made before invoices were issued' }),
  issuedAt: time,
  amount: money.meta({ description: 'The refunded amount' }),
  currency,
  transactionOrderId: z.string(),
  url: z.string().meta({ description: 'The hosted credit note page' }),
  pdfUrl: z.string().meta({ description: 'The credit note as PDF' }),
});

export const invoiceSchema = z.object({
  invoiceNumber: z.string().meta({ examples: ['INV-000042'] }),
  merchantId: z.string(),
  issuedAt: time,
  total: money.meta({ description: 'What was charged: the sum of the lines' }),
  currency,
  transactionOrderId: z.string(),
  relationId: z.string().optional().meta({ description: 'Absent for a renewal' }),
  subscriptionCode: z.string().optional(),
  userId: z.string().optional(),
  seller: seller.meta({ description: 'The merchant as it was when the invoice was issued' }),
  customer,
  lines: z.array(line),
  couponCode: z.string().optional().meta({ description: 'The coupon that discounted the charge (only when one did)' }),
  discountAmount: money
    .optional()
    .meta({ description: 'What the coupon took off; its negative line is among the lines too' }),
  paidWith: z
    .object({ brand: z.string(), last4: z.string() })
    .optional()
    .meta({ description: 'The card: its brand and last four digits, never more' }),
  url: z.string().meta({ description: 'The hosted invoice page' }),
  pdfUrl: z.string().meta({ description: 'The invoice as PDF' }),
  creditNotes: z.array(creditNoteSchema).optional().meta({ description: "The refunds' credit notes (detail only)" }),
});
