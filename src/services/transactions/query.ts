import { z } from 'zod';
import type { Ctx } from '../../ctx.js';
import { invalidParam, notFound } from '../../domain/errors.js';
import { optionalString, parseInput } from '../../domain/fields.js';
import type { TransactionRow } from '../../store/store.js';
import { expireIfStale } from '../pages.js';
import { transactionDetail, transactionView, type TransactionDetail, type TransactionView } from './view.js';

export interface TransactionRef {
  transactionOrderId?: string | undefined;
  relationId?: string | undefined;
}

/**
 * Find this merchant's transaction by id and/or relationId (SPEC §5): at least one is required
 * (1001); both must name the same transaction (1001); foreign or unknown is 1007.
 */
export async function findTransaction(ctx: Ctx, merchantId: string, ref: TransactionRef): Promise<TransactionRow> {
  if (!ref.transactionOrderId && !ref.relationId)
    throw invalidParam('transactionOrderId', 'transactionOrderId or relationId is required');
  const byId = ref.transactionOrderId
    ? await ctx.store.getMerchantTransaction(merchantId, ref.transactionOrderId)
    : undefined;
  const byRel = ref.relationId ? await ctx.store.getTransactionByRelation(merchantId, ref.relationId) : undefined;
  // Both sent must name one transaction (SPEC §5): one naming a transaction and the other
  // another, or nothing, is 1001; both naming nothing is the transaction not found.
  if (ref.transactionOrderId && ref.relationId && (byId || byRel) && byId?.id !== byRel?.id) {
    if (byId && byRel)
      throw invalidParam('relationId', 'transactionOrderId and relationId name different transactions');
    if (byId) throw invalidParam('relationId', 'does not belong to transactionOrderId');
    throw invalidParam('transactionOrderId', 'does not name the transaction of relationId');
  }
  const row = ref.transactionOrderId ? byId : byRel;
  if (!row) throw notFound('transaction');
  return row;
}

export const TRANSACTION_QUERY_REQUEST = z.object({
  transactionOrderId: optionalString(200),
  relationId: optionalString(200),
});

/** GET /payment/{apiKey}/transaction/query and `paygate tx show`. */
export async function queryTransaction(ctx: Ctx, merchantId: string, input: unknown): Promise<TransactionView> {
  const ref = parseInput(TRANSACTION_QUERY_REQUEST, input);
  return transactionView(ctx, await expireIfStale(ctx, await findTransaction(ctx, merchantId, ref)));
}

export async function showTransaction(ctx: Ctx, id: string, merchantId?: string): Promise<TransactionDetail> {
  const row = merchantId ? await ctx.store.getMerchantTransaction(merchantId, id) : await ctx.store.getTransaction(id);
  if (!row) throw notFound('transaction');
  return transactionDetail(ctx, await expireIfStale(ctx, row));
}

export async function listTransactions(
  ctx: Ctx,
  f: { merchantId?: string | undefined; status?: number | undefined; limit?: number | undefined },
): Promise<TransactionDetail[]> {
  const rows = await ctx.store.listTransactions({ merchantId: f.merchantId, status: f.status, limit: f.limit ?? 50 });
  return Promise.all(rows.map((r) => transactionDetail(ctx, r)));
}
