import type { Ctx } from '../ctx.js';
import { invalidParam, notAllowed, notFound } from '../domain/errors.js';
import { formatTime } from '../domain/time.js';
import type { CustomerEmailRow, EmailStatus } from '../store/store.js';
import type { Page, PageRequest } from './operator.js';

/**
 * The operator's view of the customer email outbox (SPEC §17): list emails with their delivery
 * state, and put a DEAD or sent one back in the queue.
 */

export interface EmailView {
  emailId: string;
  merchantId: string;
  kind: CustomerEmailRow['kind'];
  to: string;
  status: EmailStatus;
  attempts: number;
  lastError?: string;
  /** PENDING only: when the next attempt is due. */
  nextAttemptTime?: string;
  sentTime?: string;
  createTime: string;
  subscriptionId?: string;
  transactionId?: string;
}

function view(ctx: Ctx, r: CustomerEmailRow): EmailView {
  return {
    emailId: r.id,
    merchantId: r.merchantId,
    kind: r.kind,
    to: r.recipient,
    status: r.status,
    attempts: r.attempts,
    ...(r.lastError !== null ? { lastError: r.lastError } : {}),
    ...(r.status === 'PENDING' ? { nextAttemptTime: formatTime(r.nextAttemptAt, ctx.zone) } : {}),
    ...(r.sentAt !== null ? { sentTime: formatTime(r.sentAt, ctx.zone) } : {}),
    createTime: formatTime(r.createdAt, ctx.zone),
    ...(r.subscriptionId !== null ? { subscriptionId: r.subscriptionId } : {}),
    ...(r.transactionId !== null ? { transactionId: r.transactionId } : {}),
  };
}

const STATUSES: readonly EmailStatus[] = ['PENDING', 'SENT', 'DEAD'];

export async function pageEmails(
  ctx: Ctx,
  f: { merchantId?: string | undefined; status?: string | undefined },
  req: PageRequest,
): Promise<Page<EmailView>> {
  const status = f.status?.toUpperCase() as EmailStatus | undefined;
  if (status !== undefined && !STATUSES.includes(status))
    throw invalidParam('status', `must be one of ${STATUSES.join(', ')}`);
  const rows = await ctx.store.listEmails({
    status,
    merchantId: f.merchantId,
    limit: req.limit + 1,
    offset: (req.page - 1) * req.limit,
  });
  return {
    items: rows.slice(0, req.limit).map((r) => view(ctx, r)),
    page: req.page,
    limit: req.limit,
    more: rows.length > req.limit,
  };
}

export async function showEmail(ctx: Ctx, id: string): Promise<EmailView> {
  const row = await ctx.store.getEmail(id);
  if (!row) throw notFound('email');
  return view(ctx, row);
}

/**
 * Put a DEAD or SENT email back in the queue: PENDING, due now, attempts and last error cleared
 * (sending a SENT one again is the operator's explicit choice). 1007 for an unknown email, 1008
 * when it is already PENDING.
 */
export async function resendEmail(ctx: Ctx, id: string): Promise<EmailView> {
  const now = ctx.clock.now();
  await ctx.store.transaction(async (tx) => {
    const row = await tx.getEmail(id);
    if (!row) throw notFound('email');
    if (row.status === 'PENDING') throw notAllowed('email is already PENDING (waiting for delivery)');
    await tx.requeueEmail(id, now);
  });
  return showEmail(ctx, id);
}
