import type { Ctx } from '../app.js';
import type { ChargeResult } from '../channel/channel.js';
import { isPaygateError, notFound, PaygateError, RESULT_CODES } from '../domain/errors.js';
import { formatAmount } from '../domain/money.js';
import { prepared } from '../store/prepared.js';
import { getByPageToken, getTransaction, holdPage, stalePageIds, updateTransactionIf, type TransactionRow } from '../store/transactions.js';
import { channelCard, validateCard, type ValidCard } from '../vault/card.js';
import { itemsOf } from './transactions/input.js';
import { awaitThreeDs, finishSucceeded, finishUnpaid } from './transactions/outcome.js';
import { STATUS } from './transactions/view.js';
import { subscriptionStatusOf } from './subscribe.js';

/**
 * The logic of the hosted checkout and 3DS pages (SPEC §11); the HTTP layer renders them. A
 * page token works only while its transaction waits on that page and for 30 minutes after it
 * was issued; an expired one turns the transaction EXPIRED (300010) the first time it is seen.
 */
export type PageKind = 'checkout' | '3ds';

export interface PageView {
  kind: PageKind;
  token: string;
  transactionOrderId: string;
  /** The shop's own order reference, shown to the person paying (the internal id means nothing to them). */
  relationId?: string;
  merchantName: string;
  amount: string;
  currency: string;
  items?: { name: string; price?: string; num?: string }[];
  status: number;
  failReason?: string;
  declines: number;
  /** Where the page may send the user; the HTTP layer narrows its CSP form-action to these. */
  returnUrl?: string;
  failedUrl?: string;
  cancelUrl?: string;
}

export interface PageOutcome {
  result: 'succeeded' | 'failed' | 'cancelled' | 'declined_retry' | 'three_ds';
  redirectUrl?: string;
  failReason?: string;
  view: PageView;
}

export interface PageCard {
  holderName?: string;
  cardNumber: string;
  month: string;
  year: string;
  cvv: string;
}

/** The third declined card on a checkout page ends the transaction FAILED (SPEC §11). */
export const MAX_CHECKOUT_DECLINES = 3;

const OPEN_STATUS: Record<PageKind, number> = { checkout: STATUS.AWAITING_CHECKOUT, '3ds': STATUS.REQUIRES_3DS };

function merchantName(ctx: Ctx, merchantId: string): string {
  return (prepared(ctx.sqlite, 'SELECT name FROM merchants WHERE id = ?').get(merchantId) as { name: string } | undefined)?.name ?? '';
}

/** A DISABLED merchant is refused everywhere (SPEC §2), its pages opened before it was disabled too. */
function merchantActive(ctx: Ctx, merchantId: string): boolean {
  return (prepared(ctx.sqlite, 'SELECT status FROM merchants WHERE id = ?').get(merchantId) as { status: string } | undefined)?.status === 'ACTIVE';
}

function pageView(ctx: Ctx, kind: PageKind, row: TransactionRow): PageView {
  const items = itemsOf(row.items);
  return {
    kind,
    token: row.pageToken ?? '',
    transactionOrderId: row.id,
    ...(row.relationId ? { relationId: row.relationId } : {}),
    merchantName: merchantName(ctx, row.merchantId),
    amount: formatAmount(row.amount, row.currency),
    currency: row.currency,
    ...(items ? { items } : {}),
    status: row.status,
    ...(row.failReason ? { failReason: row.failReason } : {}),
    declines: row.checkoutDeclines,
    ...(row.returnUrl ? { returnUrl: row.returnUrl } : {}),
    ...(row.failedUrl ? { failedUrl: row.failedUrl } : {}),
    ...(row.cancelUrl ? { cancelUrl: row.cancelUrl } : {}),
  };
}

/**
 * A page whose session ran out (EXPIRED, 300010): still 1007 for API-style callers, but it
 * carries the failed outcome so the page can send the user on to failedUrl instead of a dead end.
 */
export class PageExpiredError extends PaygateError {
  readonly outcome: PageOutcome;
  constructor(outcome: PageOutcome) {
    super(RESULT_CODES.NOT_FOUND, 'page expired');
    this.outcome = outcome;
  }
}

/** Expire one open page's transaction; runs inside a transaction. */
function expireRow(ctx: Ctx, row: TransactionRow, now: number): boolean {
  const reason = row.status === STATUS.REQUIRES_3DS ? 'authentication_expired' : null;
  return finishUnpaid(ctx, row, row.status, STATUS.EXPIRED, reason, now, { notifySubscription: true });
}

/** The open transaction behind a token, or 1007 (unknown, used, final, cancelled subscription, expired). */
function openRow(ctx: Ctx, kind: PageKind, token: string): TransactionRow {
  const row = typeof token === 'string' && token !== '' ? getByPageToken(ctx.sqlite, token) : undefined;
  // Unavailable, and left as it is: enabled again within its 30 minutes, the page works again.
  if (row && !merchantActive(ctx, row.merchantId)) throw notFound('page');
  if (row && row.status === STATUS.EXPIRED) throw new PageExpiredError(outcome(ctx, kind, row));
  if (!row || row.status !== OPEN_STATUS[kind]) throw notFound('page');
  // A cancelled subscription's open 3DS page stops working (SPEC §6).
  if (row.subscriptionId && subscriptionStatusOf(ctx, row.subscriptionId) !== 'INCOMPLETE') throw notFound('page');
  const now = ctx.clock.now();
  if (row.pageExpiresAt !== null && row.pageExpiresAt <= now) {
    ctx.sqlite.transaction(() => expireRow(ctx, row, now)).immediate();
    const expired = getTransaction(ctx.sqlite, row.id);
    throw expired && expired.status === STATUS.EXPIRED ? new PageExpiredError(outcome(ctx, kind, expired)) : notFound('page');
  }
  return row;
}

/** How long a submitted page stays open for the channel's answer, even past its 30 minutes. */
export const CHANNEL_GRACE_MS = 2 * 60_000;

/**
 * Before the channel is called: keep the page open until the answer can be recorded. Without it,
 * a card submitted in the last instant could be charged while the expiry sweep closed the
 * transaction, and the charge would never be recorded.
 */
async function holdForChannel(ctx: Ctx, kind: PageKind, token: string, row: TransactionRow): Promise<void> {
  const now = ctx.clock.now();
  // Checked again in the same write transaction as the hold: a merchant disabled after the page
  // was read is not charged.
  const held = await ctx.writer.transaction(
    () => merchantActive(ctx, row.merchantId) && holdPage(ctx.sqlite, row.id, OPEN_STATUS[kind], now, now + CHANNEL_GRACE_MS),
  );
  if (held) return;
  openRow(ctx, kind, token); // throws what the page now is: expired, or gone
  throw notFound('page'); // still open but not holdable: another submit changed it meanwhile
}

/**
 * A transaction read for display (query API, `tx show`) whose page ran out is expired first, so
 * nobody is told a dead session is still open; the expiry sweep would do the same a minute later.
 */
export function expireIfStale(ctx: Ctx, row: TransactionRow): TransactionRow {
  const open = row.status === STATUS.AWAITING_CHECKOUT || row.status === STATUS.REQUIRES_3DS;
  const now = ctx.clock.now();
  if (!open || row.pageExpiresAt === null || row.pageExpiresAt > now) return row;
  ctx.sqlite.transaction(() => expireRow(ctx, row, now)).immediate();
  return getTransaction(ctx.sqlite, row.id) ?? row;
}

export function getPage(ctx: Ctx, kind: PageKind, token: string): PageView {
  return pageView(ctx, kind, openRow(ctx, kind, token));
}

function outcome(ctx: Ctx, kind: PageKind, row: TransactionRow, declinedReason?: string): PageOutcome {
  const view = pageView(ctx, kind, row);
  const url = (u: string | null) => (u ? { redirectUrl: u } : {});
  switch (row.status) {
    case STATUS.SUCCEEDED:
      return { result: 'succeeded', ...url(row.returnUrl), view };
    case STATUS.CANCELLED:
      return { result: 'cancelled', ...url(row.cancelUrl), view };
    case STATUS.REQUIRES_3DS:
      return { result: 'three_ds', redirectUrl: `/3ds/${row.pageToken ?? ''}`, view };
    case STATUS.AWAITING_CHECKOUT:
      return { result: 'declined_retry', ...(declinedReason ? { failReason: declinedReason } : {}), view };
    default:
      // FAILED or EXPIRED: both leave through failedUrl.
      return { result: 'failed', ...url(row.failedUrl), ...(row.failReason ? { failReason: row.failReason } : {}), view };
  }
}

/**
 * A card entered on the checkout page, charged customer-present. A card that fails the local
 * checks (Luhn, expiry) is shown as a retry without counting as a decline; each attempt has its
 * own channel idempotency key (`<txn>:<attempt>`), so a double submit charges once.
 */
export async function submitCheckoutCard(ctx: Ctx, token: string, input: PageCard): Promise<PageOutcome> {
  const row = openRow(ctx, 'checkout', token);
  let card: ValidCard;
  try {
    // Browsers' cc-exp autofill may give "3" and "30": the page accepts them; the API does not.
    const month = /^\d$/.test(input.month) ? `0${input.month}` : input.month;
    const year = /^\d{2}$/.test(input.year) ? `20${input.year}` : input.year;
    card = validateCard({ ...input, month, year, cardNumber: String(input.cardNumber ?? '') }, ctx.clock.now(), ctx.zone);
  } catch (e) {
    if (isPaygateError(e)) return { result: 'declined_retry', failReason: e.message, view: pageView(ctx, 'checkout', row) };
    throw e;
  }
  await holdForChannel(ctx, 'checkout', token, row);
  const attempt = row.checkoutDeclines + 1;
  const result: ChargeResult = await ctx.channel.charge({
    idempotencyKey: `${row.id}:${attempt}`,
    amount: row.amount,
    currency: row.currency,
    card: channelCard(card, true),
    customerPresent: true,
  });
  const after = await ctx.writer.transaction(() => {
    const now = ctx.clock.now();
    const cur = getTransaction(ctx.sqlite, row.id);
    // Someone else (a double submit, the expiry sweep) already moved it: report what is there.
    if (!cur || cur.status !== STATUS.AWAITING_CHECKOUT || cur.checkoutDeclines !== row.checkoutDeclines) return cur ?? row;
    const display = { cardBin: card.bin, cardLast4: card.last4, cardBrand: card.brand, updatedAt: now };
    updateTransactionIf(ctx.sqlite, cur.id, STATUS.AWAITING_CHECKOUT, display);
    const fresh = { ...cur, ...display };
    if (result.outcome === 'approved') finishSucceeded(ctx, fresh, STATUS.AWAITING_CHECKOUT, result.ref, now);
    else if (result.outcome === 'requires_action') awaitThreeDs(ctx, fresh, STATUS.AWAITING_CHECKOUT, result.ref, now, true);
    else if (attempt >= MAX_CHECKOUT_DECLINES) {
      finishUnpaid(ctx, fresh, STATUS.AWAITING_CHECKOUT, STATUS.FAILED, result.reason, now, { channelRef: result.ref, checkoutDeclines: attempt });
    } else updateTransactionIf(ctx.sqlite, cur.id, STATUS.AWAITING_CHECKOUT, { checkoutDeclines: attempt, updatedAt: now });
    return getTransaction(ctx.sqlite, row.id) ?? cur;
  });
  return outcome(ctx, 'checkout', after, result.outcome === 'declined' ? result.reason : undefined);
}

/** The user cancelled on the checkout page: CANCELLED (300020) → cancelUrl. */
export function cancelCheckout(ctx: Ctx, token: string): PageOutcome {
  const row = openRow(ctx, 'checkout', token);
  const now = ctx.clock.now();
  const done = ctx.sqlite.transaction(() => finishUnpaid(ctx, row, STATUS.AWAITING_CHECKOUT, STATUS.CANCELLED, null, now)).immediate();
  if (!done) throw notFound('page');
  return outcome(ctx, 'checkout', getTransaction(ctx.sqlite, row.id) ?? row);
}

/**
 * The sandbox 3DS challenge: Complete finishes the charge (→ returnUrl; a SUBSCRIPTION becomes
 * ACTIVE), Fail ends it FAILED with authentication_failed (→ failedUrl; a SUBSCRIPTION EXPIRED).
 * completeAction is idempotent per charge, and the record is conditional, so a double click
 * records once.
 */
export async function completeThreeDs(ctx: Ctx, token: string, passed: boolean): Promise<PageOutcome> {
  const row = openRow(ctx, '3ds', token);
  if (!row.channelRef) throw notFound('page');
  await holdForChannel(ctx, '3ds', token, row);
  const result = await ctx.channel.completeAction(row.channelRef, passed);
  const after = await ctx.writer.transaction(() => {
    const now = ctx.clock.now();
    if (result.outcome === 'approved') finishSucceeded(ctx, row, STATUS.REQUIRES_3DS, result.ref, now);
    else {
      const reason = result.outcome === 'declined' ? result.reason : 'authentication_failed';
      finishUnpaid(ctx, row, STATUS.REQUIRES_3DS, STATUS.FAILED, reason, now, { notifySubscription: true });
    }
    return getTransaction(ctx.sqlite, row.id) ?? row;
  });
  return outcome(ctx, '3ds', after);
}

/**
 * Expire every 3DS / checkout session past its 30 minutes (the renewal run calls this). Reads
 * only the partial index transactions_open_pages. Returns how many were expired.
 */
export function expireStalePages(ctx: Ctx): number {
  const now = ctx.clock.now();
  let count = 0;
  for (;;) {
    const ids = stalePageIds(ctx.sqlite, now, 500);
    if (ids.length === 0) return count;
    const expired = ctx.sqlite
      .transaction(() => {
        let n = 0;
        for (const id of ids) {
          const row = getTransaction(ctx.sqlite, id);
          if (row && (row.status === STATUS.REQUIRES_3DS || row.status === STATUS.AWAITING_CHECKOUT) && expireRow(ctx, row, now)) n++;
        }
        return n;
      })
      .immediate();
    count += expired;
    if (ids.length < 500) return count;
  }
}
