import { z } from 'zod';
import type { Ctx } from '../../app.js';
import { invalidParam, notFound } from '../../domain/errors.js';
import { optionalString, parseInput } from '../../domain/fields.js';
import {
  getByRelation,
  getMerchantTransaction,
  getTransaction,
  listTransactionRows,
  type TransactionRow,
} from '../../store/transactions.js';
import { expireIfStale } from '../pages.js';
import { transactionDetail, transactionView, type TransactionView } from './view.js';

export interface TransactionRef {
  transactionOrderId?: string | undefined;
  relationId?: string | undefined;
}

/**
 * Find this merchant's transaction by id and/or relationId (SPEC §5): at least one is required
 * (1001); both must name the same transaction (1001); foreign or unknown is 1007.
 */
export function findTransaction(ctx: Ctx, merchantId: string, ref: TransactionRef): TransactionRow {
  if (!ref.transactionOrderId && !ref.relationId) throw invalidParam('transactionOrderId', 'transactionOrderId or relationId is required');
  const byId = ref.transactionOrderId ? getMerchantTransaction(ctx.sqlite, merchantId, ref.transactionOrderId) : undefined;
  const byRel = ref.relationId ? getByRelation(ctx.sqlite, merchantId, ref.relationId) : undefined;
  if (ref.transactionOrderId && ref.relationId && byId && byRel && byId.id !== byRel.id) {
    throw invalidParam('relationId', 'transactionOrderId and relationId name different transactions');
  }
  const row = ref.transactionOrderId ? byId : byRel;
  if (!row) throw notFound('transaction');
  if (ref.relationId && ref.transactionOrderId && !byRel) throw invalidParam('relationId', 'does not belong to transactionOrderId');
  return row;
}

export const TRANSACTION_QUERY_REQUEST = z.object({ transactionOrderId: optionalString(200), relationId: optionalString(200) });

/** GET /payment/{apiKey}/transaction/query and `paygate tx show`. */
export function queryTransaction(ctx: Ctx, merchantId: string, input: unknown): TransactionView {
  const ref = parseInput(TRANSACTION_QUERY_REQUEST, input);
  return transactionView(ctx, expireIfStale(ctx, findTransaction(ctx, merchantId, ref)));
}

export function showTransaction(ctx: Ctx, id: string, merchantId?: string): ReturnType<typeof transactionDetail> {
  const row = merchantId ? getMerchantTransaction(ctx.sqlite, merchantId, id) : getTransaction(ctx.sqlite, id);
  if (!row) throw notFound('transaction');
  return transactionDetail(ctx, expireIfStale(ctx, row));
}

export function listTransactions(
  ctx: Ctx,
  f: { merchantId?: string | undefined; status?: number | undefined; limit?: number | undefined },
): ReturnType<typeof transactionDetail>[] {
  return listTransactionRows(ctx.sqlite, { merchantId: f.merchantId, status: f.status, limit: f.limit ?? 50 }).map((r) => transactionDetail(ctx, r));
}
