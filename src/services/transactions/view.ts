import type { Ctx } from '../../ctx.js';
import { formatAmount } from '../../domain/money.js';
import { formatTime } from '../../domain/time.js';
import type { TransactionRow } from '../../store/store.js';
import { maskStored } from '../../vault/card.js';
import { STATUS, STATUS_NAMES } from './status.js';

/** SPEC §5 transaction response `data`; absent values are left out. Amounts are currency-formatted strings. */
export interface TransactionView {
  transactionOrderId: string;
  relationId?: string;
  subscriptionId?: string;
  subscriptionCode?: string;
  status: string;
  payAmount: string;
  currency: string;
  txnAmount?: string;
  txnCurrency?: string;
  failReason?: string;
  refundedAmount?: string;
  url?: string;
  createTime: string;
  txnTime?: string;
  merchantId: string;
}

export { STATUS, STATUS_NAMES } from './status.js';

/** The hosted page a transaction currently waits on, if any. */
export function pageUrl(ctx: Ctx, row: TransactionRow): string | undefined {
  if (!row.pageToken) return undefined;
  if (row.status === STATUS.REQUIRES_3DS) return `${ctx.config.publicUrl}/3ds/${row.pageToken}`;
  if (row.status === STATUS.AWAITING_CHECKOUT) return `${ctx.config.publicUrl}/checkout/${row.pageToken}`;
  return undefined;
}

export async function transactionView(ctx: Ctx, row: TransactionRow): Promise<TransactionView> {
  const code = row.subscriptionId ? await ctx.store.subscriptionCodeOf(row.subscriptionId) : undefined;
  const url = pageUrl(ctx, row);
  return {
    transactionOrderId: row.id,
    ...(row.relationId ? { relationId: row.relationId } : {}),
    ...(row.subscriptionId ? { subscriptionId: row.subscriptionId } : {}),
    ...(code ? { subscriptionCode: code } : {}),
    status: String(row.status),
    payAmount: formatAmount(row.amount, row.currency),
    currency: row.currency,
    ...(row.txnAmount !== null && row.txnCurrency
      ? { txnAmount: formatAmount(row.txnAmount, row.txnCurrency), txnCurrency: row.txnCurrency }
      : {}),
    ...(row.failReason ? { failReason: row.failReason } : {}),
    ...(row.refundedAmount > 0 ? { refundedAmount: formatAmount(row.refundedAmount, row.currency) } : {}),
    ...(url ? { url } : {}),
    createTime: formatTime(row.createdAt, ctx.zone),
    ...(row.txnTime !== null ? { txnTime: formatTime(row.txnTime, ctx.zone) } : {}),
    merchantId: row.merchantId,
  };
}

/** CLI rendering extras: the status name and the masked card, never the number. */
export type TransactionDetail = TransactionView & { statusName: string; paymentType: string; card?: string };

export async function transactionDetail(ctx: Ctx, row: TransactionRow): Promise<TransactionDetail> {
  const card = maskStored(row.cardBin, row.cardLast4);
  return {
    ...(await transactionView(ctx, row)),
    statusName: STATUS_NAMES[row.status] ?? 'UNKNOWN',
    paymentType: row.paymentType,
    ...(card ? { card: `${row.cardBrand ?? ''} ${card}`.trim() } : {}),
  };
}
