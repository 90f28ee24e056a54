import { z } from 'zod';
import type { Ctx } from '../ctx.js';
import { invalidParam, notAllowed, notFound } from '../domain/errors.js';
import {
  amountString,
  blankAbsent,
  integerField,
  optionalString,
  parseInput,
  requiredString,
  wireForm,
} from '../domain/fields.js';
import { newId } from '../domain/ids.js';
import { amountNumber, parseAmount } from '../domain/money.js';
import { formatTime } from '../domain/time.js';
import { rowOf, type PlanRow } from '../store/store.js';
import { CYCLE_TYPES, type CycleType } from '../domain/cycle-types.js';

export { CYCLE_TYPES, type CycleType } from '../domain/cycle-types.js';

/** At most one year in all (SPEC §6). */
export const MAX_CYCLE_LENGTH: Record<CycleType, number> = { DAILY: 365, WEEKLY: 52, MONTHLY: 12, YEARLY: 1 };

export const PLAN_CREATE_REQUEST = z.object({
  planName: requiredString(200),
  description: optionalString(500),
  price: amountString('is required and must be a decimal string such as "9.99"'),
  // Any other code is refused with its own message below; the document says what is accepted.
  currency: wireForm(requiredString(20), { type: 'string', enum: ['USD'] }),
  cycleType: z.enum(CYCLE_TYPES, { error: 'must be one of DAILY, WEEKLY, MONTHLY, YEARLY' }),
  cycleLength: integerField(1, 365),
  trialDays: integerField(0, 3650).optional(),
  maxSubscriptions: integerField(0, 1_000_000_000).optional(),
});

/** SPEC §6 / SERVICE.md plan response; price is a JSON number. */
export interface PlanView {
  planId: string;
  merchantId: string;
  planName: string;
  description?: string;
  price: number;
  currency: string;
  cycleType: string;
  cycleLength: number;
  trialDays: number;
  maxSubscriptions: number;
  currentSubscriptions: number;
  status: string;
  createTime: string;
}

export function planView(ctx: Ctx, row: PlanRow): PlanView {
  return {
    planId: row.id,
    merchantId: row.merchantId,
    planName: row.name,
    ...(row.description ? { description: row.description } : {}),
    price: amountNumber(row.price, row.currency),
    currency: row.currency,
    cycleType: row.cycleType,
    cycleLength: row.cycleLength,
    trialDays: row.trialDays,
    maxSubscriptions: row.maxSubscriptions,
    currentSubscriptions: row.currentSubscriptions,
    status: row.status,
    createTime: formatTime(row.createdAt, ctx.zone),
  };
}

export async function createPlan(ctx: Ctx, merchantId: string, input: unknown): Promise<PlanView> {
  const data = parseInput(PLAN_CREATE_REQUEST, input);
  if (data.currency !== 'USD') throw invalidParam('currency', 'plans accept USD only');
  const max = MAX_CYCLE_LENGTH[data.cycleType];
  if (data.cycleLength > max)
    throw invalidParam('cycleLength', `must be at most ${max} for ${data.cycleType} (one year in all)`);
  const trialDays = data.trialDays ?? 0;
  const price = parseAmount(data.price, data.currency, { field: 'price' });
  if (price === 0 && trialDays === 0) throw invalidParam('price', 'may be zero only with a trial');
  const now = ctx.clock.now();
  const row: PlanRow = rowOf('plans', {
    id: newId('pln', now),
    merchantId,
    name: data.planName,
    description: data.description ?? null,
    price,
    currency: data.currency,
    cycleType: data.cycleType,
    cycleLength: data.cycleLength,
    trialDays,
    maxSubscriptions: data.maxSubscriptions ?? 0,
    currentSubscriptions: 0,
    status: 'ACTIVE',
    createdAt: now,
  });
  await ctx.store.transaction((tx) => tx.insertPlan(row));
  return planView(ctx, row);
}

export async function requirePlan(ctx: Ctx, merchantId: string, planId: string): Promise<PlanRow> {
  const row = await ctx.store.getPlan(merchantId, planId);
  if (!row) throw notFound('plan');
  return row;
}

export const PLAN_LIST_REQUEST = z.object({
  status: blankAbsent(z.enum(['ACTIVE', 'INACTIVE'], { error: 'must be ACTIVE or INACTIVE' })),
});

export async function listPlans(ctx: Ctx, merchantId: string, input: unknown = {}): Promise<PlanView[]> {
  const { status } = parseInput(PLAN_LIST_REQUEST, input);
  return (await ctx.store.listPlans(merchantId, status)).map((r) => planView(ctx, r));
}

export async function showPlan(ctx: Ctx, merchantId: string, planId: string): Promise<PlanView> {
  return planView(ctx, await requirePlan(ctx, merchantId, planId));
}

/** Deactivate/activate: asking for the status the plan already has is refused (1008), like subscriptions. */
export async function setPlanActive(ctx: Ctx, merchantId: string, planId: string, active: boolean): Promise<PlanView> {
  const status = active ? 'ACTIVE' : 'INACTIVE';
  await ctx.store.transaction(async (tx) => {
    const row = await tx.getPlan(merchantId, planId);
    if (!row) throw notFound('plan');
    if (row.status === status) throw notAllowed(`plan is already ${status}`);
    await tx.setPlanStatus(row.id, status);
  });
  return showPlan(ctx, merchantId, planId);
}
