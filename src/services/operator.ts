import type { Ctx } from '../ctx.js';
import { invalidParam, notFound } from '../domain/errors.js';
import { SUBSCRIPTION_STATUSES } from '../domain/subscription-state.js';
import type { OwnedId } from '../store/store.js';
import { showEvent, type EventView } from './events.js';
import { listMerchants, type MerchantView } from './merchants.js';
import { showPlan, type PlanView } from './plans.js';
import { subscriptionDetail, type SubscriptionDetail } from './subscriptions/index.js';
import { showTransaction } from './transactions/index.js';
import type { TransactionDetail } from './transactions/view.js';

/**
 * The operator's view (CLI): the operator administers every merchant, so an object named by its
 * id needs no merchant (ids and subscription codes are unique across merchants), and lists span
 * every merchant with `merchantId` as a filter (SPEC §12). An id of another merchant than the one
 * given reads as absent (1007), as in the API.
 */

function owned(owner: string | undefined, given: string | undefined, what: string): string {
  if (owner === undefined || (given !== undefined && given !== owner)) throw notFound(what);
  return owner;
}

export async function planMerchantId(ctx: Ctx, planId: string, given?: string): Promise<string> {
  return owned(await ctx.store.planOwner(planId), given, 'plan');
}

/** A subscription named by its id or its code. */
export async function subscriptionRef(
  ctx: Ctx,
  idOrCode: string,
  given?: string,
): Promise<{ id: string; code: string; merchantId: string }> {
  const ref = await ctx.store.subscriptionOwner(idOrCode);
  owned(ref?.merchantId, given, 'subscription');
  return ref as { id: string; code: string; merchantId: string };
}

export async function transactionMerchantId(ctx: Ctx, id: string, given?: string): Promise<string> {
  return owned(await ctx.store.transactionOwner(id), given, 'transaction');
}

export interface PageRequest {
  /** 1-based. */
  page: number;
  limit: number;
}

export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  /** Another page follows. */
  more: boolean;
}

async function paged<T>(rows: OwnedId[], req: PageRequest, read: (r: OwnedId) => Promise<T>): Promise<Page<T>> {
  const items: T[] = [];
  for (const r of rows.slice(0, req.limit)) items.push(await read(r));
  return { items, page: req.page, limit: req.limit, more: rows.length > req.limit };
}

const windowOf = (req: PageRequest) => ({ limit: req.limit, offset: (req.page - 1) * req.limit });

function oneOf<T extends string>(field: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  const v = value.toUpperCase() as T;
  if (!allowed.includes(v)) throw invalidParam(field, `must be one of ${allowed.join(', ')}`);
  return v;
}

export async function pageMerchants(ctx: Ctx, req: PageRequest): Promise<Page<MerchantView>> {
  const all = await listMerchants(ctx);
  const start = (req.page - 1) * req.limit;
  return {
    items: all.slice(start, start + req.limit),
    page: req.page,
    limit: req.limit,
    more: all.length > start + req.limit,
  };
}

export async function pagePlans(
  ctx: Ctx,
  f: { merchantId?: string | undefined; status?: string | undefined },
  req: PageRequest,
): Promise<Page<PlanView>> {
  const status = oneOf('status', f.status, ['ACTIVE', 'INACTIVE'] as const);
  return paged(await ctx.store.pagePlanIds({ merchantId: f.merchantId, status, ...windowOf(req) }), req, (r) =>
    showPlan(ctx, r.merchantId, r.id),
  );
}

export async function pageSubscriptions(
  ctx: Ctx,
  f: { merchantId?: string | undefined; userId?: string | undefined; status?: string | undefined },
  req: PageRequest,
): Promise<Page<SubscriptionDetail>> {
  const status = oneOf('status', f.status, SUBSCRIPTION_STATUSES);
  return paged(
    await ctx.store.pageSubscriptionIds({ merchantId: f.merchantId, userId: f.userId, status, ...windowOf(req) }),
    req,
    (r) => subscriptionDetail(ctx, r.merchantId, { subscriptionId: r.id }),
  );
}

export async function pageTransactions(
  ctx: Ctx,
  f: { merchantId?: string | undefined; status?: number | undefined },
  req: PageRequest,
): Promise<Page<TransactionDetail>> {
  return paged(
    await ctx.store.pageTransactionIds({ merchantId: f.merchantId, status: f.status, ...windowOf(req) }),
    req,
    (r) => showTransaction(ctx, r.id),
  );
}

export async function pageEvents(
  ctx: Ctx,
  f: { merchantId?: string | undefined; status?: string | undefined; subscription?: string | undefined },
  req: PageRequest,
): Promise<Page<EventView>> {
  const status = oneOf('status', f.status, ['PENDING', 'DELIVERED', 'DEAD'] as const);
  const subscriptionId =
    f.subscription !== undefined ? (await subscriptionRef(ctx, f.subscription, f.merchantId)).id : undefined;
  return paged(
    await ctx.store.pageEventIds({ merchantId: f.merchantId, status, subscriptionId, ...windowOf(req) }),
    req,
    (r) => showEvent(ctx, r.id),
  );
}

/** Every merchant's id and name, for choosing one on a terminal. */
export async function merchantChoices(ctx: Ctx): Promise<{ id: string; name: string; status: string }[]> {
  return (await ctx.store.listMerchants()).map((m) => ({ id: m.id, name: m.name, status: m.status }));
}
