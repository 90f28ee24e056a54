import type { Ctx } from '../ctx.js';
import type { ChargeResult } from '../channel/channel.js';
import { isPaygateError, notFound, PaygateError, RESULT_CODES } from '../domain/errors.js';
import { formatAmount } from '../domain/money.js';
import type { Reads, TransactionRow, Tx } from '../store/store.js';
import { channelCard, validateCard, type ValidCard } from '../vault/card.js';
import { itemsOf } from './transactions/input.js';
import { awaitThreeDs, finishSucceeded, finishUnpaid } from './transactions/outcome.js';
import { STATUS } from './transactions/view.js';
import { cardReplaceable } from './card-update/rules.js';
import { subscriptionStatusOf } from './subscribe.js';
import { channelOf } from './channel-of.js';
import { stripeApiUrlFrom } from '../channel/stripe/endpoint.js';

async function subscriptionWantsPage(ctx: Ctx, paymentType: string, subscriptionId: string): Promise<boolean> {
  const status = await subscriptionStatusOf(ctx, subscriptionId);
  if (status === undefined) return false;
  return paymentType === 'CARD_CHECK' ? cardReplaceable(status) : status === 'INCOMPLETE';
}

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
  /** A card check (a subscription's replacement card): its result reads "card updated", not "paid". */
  cardCheck?: boolean;
  failReason?: string;
  declines: number;
  /** Where the page may send the user; the HTTP layer narrows its CSP form-action to these. */
  returnUrl?: string;
  /**
   * Origins a Stripe payment's 3-D Secure hand-over may lead to from this page's form (the
   * redirect chain of a submit is held to form-action): Stripe's challenge pages.
   */
  handOverOrigins?: string[];
  failedUrl?: string;
  cancelUrl?: string;
  /** A charge on the sandbox, not a Stripe merchant's: the page says no real money moves. */
  sandbox: boolean;
}

export interface PageOutcome {
  /**
   * processing: the channel has not said how the payment ended yet (settled by its webhook or the renewal run).
   * not_tried: this submit's card was never sent to the channel: another card submitted on the page
   * (another tab) holds or was answered for the attempt; `otherCard` says how that one stands.
   */
  result: 'succeeded' | 'failed' | 'cancelled' | 'declined_retry' | 'three_ds' | 'processing' | 'not_tried';
  redirectUrl?: string;
  failReason?: string;
  /**
   * not_tried: the other card is being charged now (in_progress), was declined and the page is
   * open for another card (declined), waits on its 3-D Secure check (three_ds), or the payment
   * has ended with it (paid, processing, ended).
   */
  otherCard?: 'in_progress' | 'declined' | 'three_ds' | 'paid' | 'processing' | 'ended';
  view: PageView;
}

export interface PageCard {
  holderName?: string;
  cardNumber: string;
  month: string;
  year: string;
  cvv: string;
}

/**
 * A card typed on a hosted page (checkout, card update, portal), checked as the API checks one.
 * Browsers' cc-exp autofill may give "3" and "30": the pages accept them; the API does not.
 */
export function validatePageCard(ctx: Ctx, input: PageCard): ValidCard {
  const month = /^\d$/.test(input.month) ? `0${input.month}` : input.month;
  const year = /^\d{2}$/.test(input.year) ? `20${input.year}` : input.year;
  return validateCard({ ...input, month, year, cardNumber: String(input.cardNumber ?? '') }, ctx.clock.now(), ctx.zone);
}

/** The third declined card on a checkout page ends the transaction FAILED (SPEC §11). */
export const MAX_CHECKOUT_DECLINES = 3;

const OPEN_STATUS: Record<PageKind, number> = { checkout: STATUS.AWAITING_CHECKOUT, '3ds': STATUS.REQUIRES_3DS };

/** A DISABLED merchant is refused everywhere (SPEC §2), its pages opened before it was disabled too. */
async function merchantActive(reads: Reads, merchantId: string): Promise<boolean> {
  return (await reads.getMerchant(merchantId))?.status === 'ACTIVE';
}

async function pageView(ctx: Ctx, kind: PageKind, row: TransactionRow): Promise<PageView> {
  const items = itemsOf(row.items);
  return {
    kind,
    token: row.pageToken ?? '',
    transactionOrderId: row.id,
    ...(row.relationId ? { relationId: row.relationId } : {}),
    merchantName: (await ctx.store.getMerchant(row.merchantId))?.name ?? '',
    amount: formatAmount(row.amount, row.currency),
    currency: row.currency,
    ...(items ? { items } : {}),
    status: row.status,
    ...(row.paymentType === 'CARD_CHECK' ? { cardCheck: true } : {}),
    ...(row.failReason ? { failReason: row.failReason } : {}),
    declines: row.checkoutDeclines,
    ...(row.returnUrl ? { returnUrl: row.returnUrl } : {}),
    ...(row.failedUrl ? { failedUrl: row.failedUrl } : {}),
    ...(row.cancelUrl ? { cancelUrl: row.cancelUrl } : {}),
    ...(row.channel === 'stripe' ? { handOverOrigins: stripeChallengeOrigins() } : {}),
    sandbox: row.channel !== 'stripe',
  };
}

/** Stripe serves its challenge pages from hooks.stripe.com; a local stand-in from its API origin. */
export function stripeChallengeOrigins(): string[] {
  return [...new Set(['https://hooks.stripe.com', new URL(stripeApiUrlFrom()).origin])];
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

/**
 * A checkout whose card asked for 3-D Secure (REQUIRES_3DS) opened at its checkout URL (the back
 * button from the challenge, a reload, its Cancel): the payment is still open, on its 3DS page.
 * Carries the three_ds outcome, so the page sends the shopper on there (303 /3ds/<token>).
 */
export class PageMovedError extends PaygateError {
  readonly outcome: PageOutcome;
  constructor(outcome: PageOutcome) {
    super(RESULT_CODES.NOT_FOUND, 'page waits on its 3-D Secure check');
    this.outcome = outcome;
  }
}

/** Expire one open page's transaction, inside a unit of work. */
function expireRow(ctx: Ctx, tx: Tx, row: TransactionRow, now: number): Promise<boolean> {
  const reason = row.status === STATUS.REQUIRES_3DS ? 'authentication_expired' : null;
  return finishUnpaid(ctx, tx, row, row.status, STATUS.EXPIRED, reason, now, { notifySubscription: true });
}

/** A Stripe payment waiting on its 3-D Secure: Stripe may have charged it meanwhile. */
const askStripeFirst = (row: TransactionRow): boolean =>
  row.channel === 'stripe' && row.status === STATUS.REQUIRES_3DS && row.channelRef !== null;

/**
 * The challenge ran out unanswered: the intent is cancelled at Stripe before paygate records
 * EXPIRED, so a shopper who finishes the challenge later cannot be charged for a payment paygate
 * has given up — nor, for a card check (a trial's first charge, a card update: a SetupIntent),
 * have a card saved that paygate will not use. The cancel is keyed by the payment attempt (a
 * repeat is answered the first result). If Stripe will not cancel it because it was paid or the
 * card saved (or is being paid) meanwhile, its state comes back and the transaction is recorded
 * from it instead: money taken or a card saved is never recorded lost.
 * 'expire': nothing can be paid or saved any more; otherwise how it stands.
 */
async function abandonAtChannel(ctx: Ctx, row: TransactionRow): Promise<'expire' | ChargeResult> {
  const stillOpen: ChargeResult = { outcome: 'in_flight', ref: row.channelRef, moved: true, cause: 'not_asked' };
  try {
    const channel = await channelOf(ctx, row.merchantId, row.channel);
    if (!channel.abandon) {
      const r = await retrieveCharge(ctx, row);
      return r.outcome === 'requires_action' ? 'expire' : r;
    }
    if (!row.channelRef) return stillOpen;
    // A checkout's card attempts have their own keys; PAY, SUBSCRIPTION and CARD_CHECK charge once, as attempt 0.
    const idempotencyKey = row.paymentType === 'CHECKOUT' ? `${row.id}:${row.checkoutDeclines + 1}` : row.id;
    const r = await channel.abandon({ ref: row.channelRef, idempotencyKey });
    return r.outcome === 'cancelled' ? 'expire' : r;
  } catch {
    return stillOpen;
  }
}

/**
 * Give up a challenge Stripe runs: 'abandoned' when the intent was cancelled at Stripe (nothing
 * can be charged any more), 'settled' when Stripe says it ended otherwise (paid, declined,
 * processing) and that is now recorded, 'unknown' when Stripe could not be asked or would not
 * cancel — then nothing may be recorded on a guess, and the expiry sweep asks again.
 */
async function giveUpAtStripe(ctx: Ctx, row: TransactionRow): Promise<'abandoned' | 'settled' | 'unknown'> {
  const r = await abandonAtChannel(ctx, row);
  if (r === 'expire') return 'abandoned';
  if (r.outcome === 'approved' || r.outcome === 'declined' || (r.outcome === 'in_flight' && r.cause === 'processing')) {
    await settleThreeDs(ctx, row, r);
    return 'settled';
  }
  return 'unknown';
}

/**
 * Before a subscription's cancel closes its first charge's 3-D Secure page: a challenge Stripe
 * runs is given up at Stripe first (the shopper could still pass it there and be charged). True
 * when the page may be closed as cancelled (or is closed already); false when Stripe's answer is
 * unknown: the page stays open, so an intent that may still be paid is never recorded cancelled.
 */
export async function releaseChallengeForCancel(ctx: Ctx, transactionId: string): Promise<boolean> {
  const row = await ctx.store.getTransaction(transactionId);
  if (!row || !askStripeFirst(row)) return true;
  return (await giveUpAtStripe(ctx, row)) !== 'unknown';
}

/** Expire it in its own unit of work (a Stripe 3DS payment only once Stripe says it was not paid); the row as it is afterwards. */
async function expireNow(ctx: Ctx, row: TransactionRow, now: number): Promise<TransactionRow | undefined> {
  if (askStripeFirst(row)) {
    // The shopper may have passed Stripe's challenge and never come back: Stripe says how it
    // ended, and a challenge still open is cancelled there before it is recorded EXPIRED.
    const given = await giveUpAtStripe(ctx, row);
    if (given === 'settled') return ctx.store.getTransaction(row.id);
    // Stripe could not be asked, or would not cancel: not expired on a guess (the next sweep asks again).
    if (given === 'unknown') return row;
  }
  return ctx.store.transaction(async (tx) => {
    await expireRow(ctx, tx, row, now);
    return tx.getTransaction(row.id);
  });
}

/**
 * The open transaction behind a token, or 1007 (unknown, used, final, cancelled subscription,
 * expired). A checkout waiting on its 3DS is still open: its checkout URL throws PageMovedError
 * (on to the 3DS page), or with `threeDs: 'row'` (a card submit, which compares cards) returns it.
 */
async function openRow(
  ctx: Ctx,
  kind: PageKind,
  token: string,
  threeDs: 'moved' | 'row' = 'moved',
): Promise<TransactionRow> {
  const row = typeof token === 'string' && token !== '' ? await ctx.store.getTransactionByPageToken(token) : undefined;
  // Unavailable, and left as it is: enabled again within its 30 minutes, the page works again.
  if (row && !(await merchantActive(ctx.store, row.merchantId))) throw notFound('page');
  if (row && row.status === STATUS.EXPIRED) throw new PageExpiredError(await outcome(ctx, kind, row));
  // Only a checkout's own token: a PAY's or a subscription's 3DS token never was a checkout page.
  const waitingOnThreeDs = kind === 'checkout' && row?.paymentType === 'CHECKOUT' && row.status === STATUS.REQUIRES_3DS;
  if (!row || (row.status !== OPEN_STATUS[kind] && !waitingOnThreeDs)) throw notFound('page');
  // A cancelled subscription's open 3DS page stops working (SPEC §6); a card check's, once the
  // subscription can no longer take a new card.
  if (row.subscriptionId && !(await subscriptionWantsPage(ctx, row.paymentType, row.subscriptionId)))
    throw notFound('page');
  const now = ctx.clock.now();
  if (row.pageExpiresAt !== null && row.pageExpiresAt <= now) {
    const expired = await expireNow(ctx, row, now);
    throw expired && expired.status === STATUS.EXPIRED
      ? new PageExpiredError(await outcome(ctx, kind, expired))
      : notFound('page');
  }
  if (waitingOnThreeDs && threeDs === 'moved') throw new PageMovedError(await outcome(ctx, kind, row));
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
  // Checked again in the same unit of work as the hold: a merchant disabled after the page was
  // read is not charged.
  const held = await ctx.store.transaction(
    async (tx) =>
      (await merchantActive(tx, row.merchantId)) && tx.holdPage(row.id, OPEN_STATUS[kind], now, now + CHANNEL_GRACE_MS),
  );
  if (held) return;
  await openRow(ctx, kind, token); // throws what the page now is: expired, or gone
  throw notFound('page'); // still open but not holdable: another submit changed it meanwhile
}

/**
 * A transaction read for display (query API, `tx show`) whose page ran out is expired first, so
 * nobody is told a dead session is still open; the expiry sweep would do the same a minute later.
 */
export async function expireIfStale(ctx: Ctx, row: TransactionRow): Promise<TransactionRow> {
  const open = row.status === STATUS.AWAITING_CHECKOUT || row.status === STATUS.REQUIRES_3DS;
  const now = ctx.clock.now();
  if (!open || row.pageExpiresAt === null || row.pageExpiresAt > now) return row;
  return (await expireNow(ctx, row, now)) ?? row;
}

export async function getPage(ctx: Ctx, kind: PageKind, token: string): Promise<PageView> {
  return pageView(ctx, kind, await openRow(ctx, kind, token));
}

async function outcome(ctx: Ctx, kind: PageKind, row: TransactionRow, declinedReason?: string): Promise<PageOutcome> {
  const view = await pageView(ctx, kind, row);
  const url = (u: string | null) => (u ? { redirectUrl: u } : {});
  switch (row.status) {
    case STATUS.SUCCEEDED:
      return { result: 'succeeded', ...url(row.returnUrl), view };
    case STATUS.CANCELLED:
      return { result: 'cancelled', ...url(row.cancelUrl), view };
    case STATUS.REQUIRES_3DS:
      return { result: 'three_ds', redirectUrl: `/3ds/${row.pageToken ?? ''}`, view };
    case STATUS.ACCEPTED:
      return { result: 'processing', view };
    case STATUS.AWAITING_CHECKOUT:
      return { result: 'declined_retry', ...(declinedReason ? { failReason: declinedReason } : {}), view };
    default:
      // FAILED or EXPIRED: both leave through failedUrl.
      return {
        result: 'failed',
        ...url(row.failedUrl),
        ...(row.failReason ? { failReason: row.failReason } : {}),
        view,
      };
  }
}

/**
 * The card a checkout row shows (BIN, last four, brand): written when a submit claims an attempt,
 * so it names the card that attempt's channel key was sent with. Only these display fields are
 * kept of a card, never its number, so two cards alike in all three count as one.
 */
const sameCard = (row: TransactionRow, card: ValidCard): boolean =>
  row.cardBin === card.bin && row.cardLast4 === card.last4 && row.cardBrand === card.brand;

/** Where a checkout stands for a card that was not tried on it (another card holds or answered the attempt). */
function otherCardOf(row: TransactionRow, now: number): NonNullable<PageOutcome['otherCard']> {
  switch (row.status) {
    case STATUS.AWAITING_CHECKOUT:
      return row.chargeHeldUntil !== null && row.chargeHeldUntil > now ? 'in_progress' : 'declined';
    case STATUS.REQUIRES_3DS:
      return 'three_ds';
    case STATUS.SUCCEEDED:
      return 'paid';
    case STATUS.ACCEPTED:
      return 'processing';
    default:
      return 'ended';
  }
}

async function notTried(ctx: Ctx, row: TransactionRow): Promise<PageOutcome> {
  return {
    result: 'not_tried',
    otherCard: otherCardOf(row, ctx.clock.now()),
    view: await pageView(ctx, 'checkout', row),
  };
}

/**
 * Before a checkout card goes to the channel: claim the attempt the page was read at (`row`) for
 * this card. The channel key is `<txn>:<attempt>`, shared by every submit of that attempt, so that
 * a double submit charges once; only the card that claimed an attempt is ever sent with its key:
 * - open, not held: held for this card (its display fields written with the hold) → charge;
 * - held for the same card (a double click), or answered for it meanwhile (declined, the page
 *   open again, no other card holding it) → charge with the same key: the channel answers its
 *   first result again, which is what the page then shows;
 * - held for, or answered for, another card (a second tab): this one is not tried (not_tried);
 * - moved on meanwhile (3DS, paid, ended): the same card sees that result, another one not_tried;
 * - expired, gone, merchant disabled: what openRow throws for it.
 */
async function claimCheckoutAttempt(
  ctx: Ctx,
  token: string,
  row: TransactionRow,
  card: ValidCard,
): Promise<'charge' | PageOutcome> {
  const now = ctx.clock.now();
  const claim = await ctx.store.transaction(async (tx): Promise<'charge' | 'closed' | TransactionRow> => {
    if (!(await merchantActive(tx, row.merchantId))) return 'closed';
    const cur = await tx.lockTransaction(row.id);
    if (!cur) return 'closed';
    if (cur.status !== STATUS.AWAITING_CHECKOUT) return cur;
    if (cur.pageExpiresAt === null || cur.pageExpiresAt <= now) return 'closed';
    const held = cur.chargeHeldUntil !== null && cur.chargeHeldUntil > now;
    if (cur.checkoutDeclines !== row.checkoutDeclines) {
      // The attempt this page was read at was answered (declined) meanwhile.
      const answeredForMe = cur.checkoutDeclines === row.checkoutDeclines + 1 && !held && sameCard(cur, card);
      return answeredForMe ? 'charge' : cur;
    }
    if (held) return sameCard(cur, card) ? 'charge' : cur;
    const display = { cardBin: card.bin, cardLast4: card.last4, cardBrand: card.brand, updatedAt: now };
    if (!(await tx.holdPage(cur.id, STATUS.AWAITING_CHECKOUT, now, now + CHANNEL_GRACE_MS))) return 'closed';
    await tx.updateTransactionIf(cur.id, STATUS.AWAITING_CHECKOUT, display);
    return 'charge';
  });
  if (claim === 'charge') return claim;
  if (claim === 'closed') {
    await openRow(ctx, 'checkout', token); // throws what the page now is: expired, or gone
    throw notFound('page');
  }
  if (claim.status === STATUS.AWAITING_CHECKOUT || !sameCard(claim, card)) return notTried(ctx, claim);
  // Moved on with this very card (a double click arriving after the first was answered): its result.
  if (claim.status === STATUS.EXPIRED) throw new PageExpiredError(await outcome(ctx, 'checkout', claim));
  return outcome(ctx, 'checkout', claim);
}

/**
 * A card entered on the checkout page, charged customer-present. A card that fails the local
 * checks (Luhn, expiry) is shown as a retry without counting as a decline; each attempt has its
 * own channel idempotency key (`<txn>:<attempt>`), so a double submit charges once, and is
 * claimed by one card (claimCheckoutAttempt): a different card submitted on the same attempt from
 * another tab is never sent with that key, and is told it was not tried (not_tried).
 * A checkout already waiting on its 3DS charges nothing: the card that asked for it is sent on to
 * its 3DS page, another card is told it was not tried.
 */
export async function submitCheckoutCard(ctx: Ctx, token: string, input: PageCard): Promise<PageOutcome> {
  const row = await openRow(ctx, 'checkout', token, 'row');
  let card: ValidCard;
  try {
    card = validatePageCard(ctx, input);
  } catch (e) {
    if (!isPaygateError(e)) throw e;
    if (row.status === STATUS.REQUIRES_3DS) return notTried(ctx, row);
    return { result: 'declined_retry', failReason: e.message, view: await pageView(ctx, 'checkout', row) };
  }
  if (row.status === STATUS.REQUIRES_3DS)
    return sameCard(row, card) ? outcome(ctx, 'checkout', row) : notTried(ctx, row);
  const claimed = await claimCheckoutAttempt(ctx, token, row, card);
  if (claimed !== 'charge') return claimed;
  const attempt = row.checkoutDeclines + 1;
  // The channel the transaction was created on (CHECKOUT is created on the sandbox only for now).
  const channel = await channelOf(ctx, row.merchantId, row.channel);
  const result: ChargeResult = await channel.charge({
    idempotencyKey: `${row.id}:${attempt}`,
    amount: row.amount,
    currency: row.currency,
    card: channelCard(card, true),
    customerPresent: true,
    transactionId: row.id,
  });
  const after = await ctx.store.transaction(async (tx) => {
    const now = ctx.clock.now();
    const cur = await tx.lockTransaction(row.id);
    // Someone else (a double submit, the expiry sweep) already moved it: report what is there.
    if (!cur || cur.status !== STATUS.AWAITING_CHECKOUT || cur.checkoutDeclines !== row.checkoutDeclines)
      return cur ?? row;
    const display = { cardBin: card.bin, cardLast4: card.last4, cardBrand: card.brand, updatedAt: now };
    await tx.updateTransactionIf(cur.id, STATUS.AWAITING_CHECKOUT, display);
    const fresh = { ...cur, ...display };
    if (result.outcome === 'approved') await finishSucceeded(ctx, tx, fresh, STATUS.AWAITING_CHECKOUT, result.ref, now);
    else if (result.outcome === 'requires_action')
      await awaitThreeDs(tx, fresh, STATUS.AWAITING_CHECKOUT, result.ref, now, true);
    else if (result.outcome === 'in_flight' && result.ref) {
      // The processor may still charge it: in progress (100000) until its webhook or the renewal run settles it.
      await tx.updateTransactionIf(cur.id, STATUS.AWAITING_CHECKOUT, {
        status: STATUS.ACCEPTED,
        channelRef: result.ref,
        checkoutDeclines: attempt - 1,
        updatedAt: now,
      });
    } else if (result.outcome === 'refused') {
      // The merchant's processor set-up is broken (a revoked key): no card can succeed; nothing was charged.
      await finishUnpaid(ctx, tx, fresh, STATUS.AWAITING_CHECKOUT, STATUS.FAILED, 'processing_error', now);
    } else {
      // A decline, or a fault before any charge existed (nothing moved): one of the three attempts.
      const reason = result.outcome === 'declined' ? result.reason : 'processing_error';
      if (attempt >= MAX_CHECKOUT_DECLINES) {
        await finishUnpaid(ctx, tx, fresh, STATUS.AWAITING_CHECKOUT, STATUS.FAILED, reason, now, {
          channelRef: result.ref,
          checkoutDeclines: attempt,
        });
      }
      // The page is open for another card, and for its Cancel button, again.
      else
        await tx.updateTransactionIf(cur.id, STATUS.AWAITING_CHECKOUT, {
          checkoutDeclines: attempt,
          chargeHeldUntil: null,
          updatedAt: now,
        });
    }
    return (await tx.getTransaction(row.id)) ?? cur;
  });
  // Held past its grace, the attempt was claimed and answered for another card meanwhile: not this one's result.
  if (after.status !== STATUS.EXPIRED && !sameCard(after, card)) return notTried(ctx, after);
  return outcome(
    ctx,
    'checkout',
    after,
    result.outcome === 'declined' ? result.reason : result.outcome === 'in_flight' ? 'processing_error' : undefined,
  );
}

/**
 * The user cancelled on the checkout page: CANCELLED (300020) → cancelUrl. Not while a card
 * submitted on the page is being charged (a second tab, a double click): that charge may be
 * approved, and its result is what the page then shows; the cancel answers "processing".
 */
export async function cancelCheckout(ctx: Ctx, token: string): Promise<PageOutcome> {
  const row = await openRow(ctx, 'checkout', token);
  const now = ctx.clock.now();
  const done = await ctx.store.transaction(async (tx) => {
    const cur = await tx.lockTransaction(row.id);
    if (cur?.status === STATUS.AWAITING_CHECKOUT && cur.chargeHeldUntil !== null && cur.chargeHeldUntil > now)
      return { row: cur, charging: true };
    if (!(await finishUnpaid(ctx, tx, row, STATUS.AWAITING_CHECKOUT, STATUS.CANCELLED, null, now))) return undefined;
    return { row: (await tx.getTransaction(row.id)) ?? row, charging: false };
  });
  if (!done) throw notFound('page');
  if (done.charging) return { result: 'processing', view: await pageView(ctx, 'checkout', done.row) };
  return outcome(ctx, 'checkout', done.row);
}

/**
 * The sandbox 3DS challenge: Complete finishes the charge (→ returnUrl; a SUBSCRIPTION becomes
 * ACTIVE), Fail ends it FAILED with authentication_failed (→ failedUrl; a SUBSCRIPTION EXPIRED).
 * completeAction is idempotent per charge, and the record is conditional, so a double click
 * records once.
 */
export async function completeThreeDs(ctx: Ctx, token: string, passed: boolean): Promise<PageOutcome> {
  const row = await openRow(ctx, '3ds', token);
  if (!row.channelRef) throw notFound('page');
  await holdForChannel(ctx, '3ds', token, row);
  const result = await ctx.channel.completeAction(row.channelRef, passed);
  const after = await ctx.store.transaction(async (tx) => {
    const now = ctx.clock.now();
    if (result.outcome === 'approved') await finishSucceeded(ctx, tx, row, STATUS.REQUIRES_3DS, result.ref, now);
    else {
      const reason = result.outcome === 'declined' ? result.reason : 'authentication_failed';
      await finishUnpaid(ctx, tx, row, STATUS.REQUIRES_3DS, STATUS.FAILED, reason, now, { notifySubscription: true });
    }
    return (await tx.getTransaction(row.id)) ?? row;
  });
  return outcome(ctx, '3ds', after);
}

/**
 * A channel that runs 3-D Secure itself (Stripe): paygate's 3DS page hands the shopper over to
 * the channel's own challenge URL, read from the channel each time (it is never stored). When the
 * channel no longer asks for the challenge (finished meanwhile), the transaction is settled from
 * its answer instead. undefined: the transaction's channel runs paygate's own challenge page.
 */
export async function threeDsHandOver(
  ctx: Ctx,
  token: string,
): Promise<{ redirectUrl: string } | { outcome: PageOutcome } | undefined> {
  const row = await openRow(ctx, '3ds', token);
  if (row.channel !== 'stripe') return undefined;
  const r = await retrieveCharge(ctx, row);
  if (r.outcome === 'requires_action' && r.redirectUrl) return { redirectUrl: r.redirectUrl };
  return { outcome: await settleThreeDs(ctx, row, r) };
}

async function retrieveCharge(ctx: Ctx, row: TransactionRow): Promise<ChargeResult> {
  if (!row.channelRef) throw notFound('page');
  const channel = await channelOf(ctx, row.merchantId, row.channel);
  if (!channel.retrieve) throw notFound('page');
  return channel.retrieve(row.channelRef);
}

/** Record what the channel says of a transaction waiting on its 3DS; the page outcome after. */
async function settleThreeDs(ctx: Ctx, row: TransactionRow, r: ChargeResult): Promise<PageOutcome> {
  const after = await ctx.store.transaction(async (tx) => {
    const now = ctx.clock.now();
    if (r.outcome === 'approved') await finishSucceeded(ctx, tx, row, STATUS.REQUIRES_3DS, r.ref, now);
    else if (r.outcome === 'declined')
      await finishUnpaid(ctx, tx, row, STATUS.REQUIRES_3DS, STATUS.FAILED, r.reason, now, { notifySubscription: true });
    // Authenticated, still processing: in progress until the webhook or the renewal run settles it.
    else if (r.outcome === 'in_flight' && r.cause === 'processing')
      await tx.updateTransactionIf(row.id, STATUS.REQUIRES_3DS, { status: STATUS.ACCEPTED, updatedAt: now });
    return (await tx.getTransaction(row.id)) ?? row;
  });
  // Still waiting on the challenge, but the channel cannot be asked right now: say so, do not loop.
  if (after.status === STATUS.REQUIRES_3DS && r.outcome !== 'requires_action')
    return { result: 'processing', view: await pageView(ctx, '3ds', after) };
  return outcome(ctx, '3ds', after);
}

/**
 * The shopper back from the channel's 3DS challenge (`/3ds/return/{transactionOrderId}`): the
 * query Stripe adds is not trusted, the intent is read from Stripe and the transaction finished
 * from that. A transaction already final (a second return, a webhook first) just shows its result.
 */
export async function returnFromThreeDs(ctx: Ctx, transactionId: string): Promise<PageOutcome> {
  const row = await ctx.store.getTransaction(transactionId);
  if (row?.channel !== 'stripe' || !row.channelRef) throw notFound('page');
  if (!(await merchantActive(ctx.store, row.merchantId))) throw notFound('page');
  if (row.status !== STATUS.REQUIRES_3DS) return outcome(ctx, '3ds', row);
  if (row.pageToken) {
    try {
      await holdForChannel(ctx, '3ds', row.pageToken, row);
    } catch (err) {
      // Settled between the read and the hold (the webhook, another return): that is its result.
      if (err instanceof PageExpiredError) throw err;
      const settled = await ctx.store.getTransaction(row.id);
      if (!settled || settled.status === STATUS.REQUIRES_3DS || !(await merchantActive(ctx.store, settled.merchantId)))
        throw err;
      return outcome(ctx, '3ds', settled);
    }
  }
  return settleThreeDs(ctx, row, await retrieveCharge(ctx, row));
}

/**
 * Expire every 3DS / checkout session past its 30 minutes (the renewal run calls this); a Stripe
 * payment's only once Stripe says it was not paid (one it charged is recorded SUCCEEDED instead). Reads
 * only the partial index transactions_open_pages. Returns how many were expired.
 */
export async function expireStalePages(ctx: Ctx): Promise<number> {
  const now = ctx.clock.now();
  let count = 0;
  for (;;) {
    const ids = await ctx.store.stalePageIds(now, 500);
    if (ids.length === 0) return count;
    let stripeEnded = 0;
    for (const id of ids) {
      const row = await ctx.store.getTransaction(id);
      if (row && askStripeFirst(row)) {
        const after = await expireNow(ctx, row, now);
        if (after && after.status !== STATUS.REQUIRES_3DS) stripeEnded++;
        if (after?.status === STATUS.EXPIRED) count++;
      }
    }
    const expired = await ctx.store.transaction(async (tx) => {
      let n = 0;
      for (const id of ids) {
        const row = await tx.getTransaction(id);
        if (!row || askStripeFirst(row)) continue;
        if (
          (row.status === STATUS.REQUIRES_3DS || row.status === STATUS.AWAITING_CHECKOUT) &&
          (await expireRow(ctx, tx, row, now))
        )
          n++;
      }
      return n;
    });
    count += expired;
    // A full batch that changed nothing holds only Stripe payments that cannot be settled yet.
    if (ids.length < 500 || expired + stripeEnded === 0) return count;
  }
}
