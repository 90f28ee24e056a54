import { z } from 'zod';
import type { Ctx } from '../ctx.js';
import { type CouponDefinition, parseCouponDraft } from '../domain/coupon.js';
import { notAllowed, notFound, PaygateError, RESULT_CODES } from '../domain/errors.js';
import { integerField, optionalString, parseInput, requiredString } from '../domain/fields.js';
import { newId } from '../domain/ids.js';
import { amountNumber } from '../domain/money.js';
import { formatTime, parseTime } from '../domain/time.js';
import { rowOf, type CouponRow } from '../store/store.js';

/**
 * A merchant's coupons (SPEC §19): create, list, show, deactivate. The terms' rules are the
 * domain's (domain/coupon.ts); this layer reads the time, checks the plans and the code's
 * uniqueness in the unit of work that writes the coupon.
 */
export const COUPON_CREATE_REQUEST = z.object({
  code: requiredString(50),
  percentOff: optionalString(16),
  amountOff: optionalString(32),
  duration: requiredString(16),
  cycles: integerField(0, 1_000_000_000).optional(),
  redeemBy: optionalString(19),
  maxRedemptions: integerField(0, 1_000_000_000).optional(),
  planIds: z.array(requiredString(64), { error: 'must be a list of plan ids' }).max(100).optional(),
});

/** GET /coupon/list takes nothing but the signed merchantId. */
export const COUPON_LIST_REQUEST = z.object({});

/** POST /coupon/deactivate: the coupon by its code, as it was created. */
export const COUPON_CODE_REQUEST = z.object({ code: requiredString(50) });

export interface CouponView {
  couponCode: string;
  merchantId: string;
  percentOff?: number;
  amountOff?: number;
  currency?: 'USD';
  duration: string;
  cycles?: number;
  redeemBy?: string;
  maxRedemptions?: number;
  redemptions: number;
  /** Empty: every plan of the merchant. */
  planIds: string[];
  status: string;
  createTime: string;
}

export function couponPlanIds(row: CouponRow): string[] {
  return row.planIds === null ? [] : (JSON.parse(row.planIds) as string[]);
}

export function couponView(ctx: Ctx, row: CouponRow): CouponView {
  return {
    couponCode: row.code,
    merchantId: row.merchantId,
    ...(row.percentBasisPoints !== null ? { percentOff: row.percentBasisPoints / 100 } : {}),
    ...(row.amountOff !== null ? { amountOff: amountNumber(row.amountOff, 'USD'), currency: 'USD' as const } : {}),
    duration: row.duration,
    ...(row.cycles !== null ? { cycles: row.cycles } : {}),
    ...(row.redeemBy !== null ? { redeemBy: formatTime(row.redeemBy, ctx.zone) } : {}),
    ...(row.maxRedemptions !== null ? { maxRedemptions: row.maxRedemptions } : {}),
    redemptions: row.redemptions,
    planIds: couponPlanIds(row),
    status: row.status,
    createTime: formatTime(row.createdAt, ctx.zone),
  };
}

export async function createCoupon(ctx: Ctx, merchantId: string, input: unknown): Promise<CouponView> {
  const data = parseInput(COUPON_CREATE_REQUEST, input);
  const def: CouponDefinition = parseCouponDraft({
    ...data,
    redeemBy: data.redeemBy === undefined ? undefined : parseTime(data.redeemBy, ctx.zone, 'redeemBy'),
  });
  const now = ctx.clock.now();
  const row: CouponRow = rowOf('coupons', {
    id: newId('cpn', now),
    merchantId,
    code: def.code,
    percentBasisPoints: 'percentBasisPoints' in def.off ? def.off.percentBasisPoints : null,
    amountOff: 'amountOff' in def.off ? def.off.amountOff : null,
    duration: def.duration,
    cycles: def.cycles,
    redeemBy: def.redeemBy,
    maxRedemptions: def.maxRedemptions,
    redemptions: 0,
    planIds: def.planIds.length > 0 ? JSON.stringify(def.planIds) : null,
    status: 'ACTIVE',
    createdAt: now,
  });
  await ctx.store.transaction(async (tx) => {
    for (const planId of def.planIds) if (!(await tx.getPlan(merchantId, planId))) throw notFound(`plan ${planId}`);
    // A concurrent create of the same code loses on the unique index; the rerun answers 1005 here.
    if (await tx.getCoupon(merchantId, def.code))
      throw new PaygateError(
        RESULT_CODES.DUPLICATE_RELATION,
        `code: ${def.code} is already a coupon of this merchant`,
        'code',
      );
    await tx.insertCoupon(row);
  });
  return couponView(ctx, row);
}

export async function listCoupons(ctx: Ctx, merchantId: string): Promise<CouponView[]> {
  return (await ctx.store.listCoupons(merchantId)).map((r) => couponView(ctx, r));
}

export async function showCoupon(ctx: Ctx, merchantId: string, code: string): Promise<CouponView> {
  const row = await ctx.store.getCoupon(merchantId, code);
  if (!row) throw notFound('coupon');
  return couponView(ctx, row);
}

/** For good: coupon fields are immutable and an INACTIVE coupon is never taken again (1008 when it already is). */
export async function deactivateCoupon(ctx: Ctx, merchantId: string, code: string): Promise<CouponView> {
  await ctx.store.transaction(async (tx) => {
    const row = await tx.getCoupon(merchantId, code);
    if (!row) throw notFound('coupon');
    if (row.status === 'INACTIVE') throw notAllowed('coupon is already INACTIVE');
    await tx.setCouponStatus(row.id, 'INACTIVE');
  });
  return showCoupon(ctx, merchantId, code);
}

export function deactivateCouponRequest(ctx: Ctx, merchantId: string, input: unknown): Promise<CouponView> {
  return deactivateCoupon(ctx, merchantId, parseInput(COUPON_CODE_REQUEST, input).code);
}
