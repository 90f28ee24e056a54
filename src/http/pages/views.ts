import type { CardPageView } from '../../services/card-update/page.js';
import type { PageOutcome, PageView } from '../../services/pages.js';
import { esc } from './html.js';

/** What a decline means to the person paying (failReason codes of SPEC §5). */
const REASONS: Record<string, string> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  expired_card: 'Your card has expired.',
  incorrect_cvc: 'The security code is incorrect.',
  processing_error: 'The card could not be processed. Please try again.',
  authentication_failed: 'The card authentication failed.',
  authentication_expired: 'The card authentication was not completed in time.',
  // Not a SPEC failReason: an unpaid checkout whose 30 minutes ran out.
  session_expired: 'This payment session has expired. Please return to the shop and start again.',
};

/** Local card checks answer with a field message ("cardInfo.cardNumber: …"); show it without the path. */
export function reasonText(reason: string | undefined): string {
  if (!reason) return 'The payment did not go through.';
  return REASONS[reason] ?? `Please check your card details: ${reason.replace(/^[\w.]+:\s*/, '')}.`;
}

/**
 * A card submitted on a checkout page that was never sent to the channel: another card submitted
 * on the same page (another tab or window) holds the attempt or was answered first.
 */
export function notTriedText(other: PageOutcome['otherCard']): string {
  const lead = 'This card was not tried: another payment attempt on this page';
  switch (other) {
    case 'in_progress':
      return `${lead} (in another tab or window) is being processed right now. Nothing was charged to this card; wait a moment before trying it.`;
    case 'declined':
      return `${lead} (in another tab or window) was answered first: that card was declined. Nothing was charged to this card.`;
    case 'three_ds':
      return `${lead} (in another tab or window) was answered first and is waiting for that card's 3-D Secure check. Nothing was charged to this card. Finish the check there, or return to the shop.`;
    case 'paid':
      return `${lead} (in another tab or window) was answered first: the payment was made with that card. Nothing was charged to this card. You can close this page.`;
    case 'processing':
      return `${lead} (in another tab or window) was answered first: the payment with that card is being processed. Nothing was charged to this card. You can close this page.`;
    default:
      return `${lead} (in another tab or window) was answered first, and the payment has ended. Nothing was charged to this card. Please return to the shop.`;
  }
}

/** The order as the shop knows it: its relationId, else our transaction id. */
const orderRef = (view: PageView): string => view.relationId ?? view.transactionOrderId;

function summary(view: PageView): string {
  const items = (view.items ?? [])
    .map(
      (i) =>
        `<tr><td>${esc(i.name)}</td><td class="n">${i.num ? `${esc(i.num)} × ` : ''}${esc(i.price ?? '')}</td></tr>`,
    )
    .join('');
  return `<h1>Pay ${esc(view.merchantName)}</h1>
<p class="merchant">Order ${esc(orderRef(view))}</p>
<p class="amount">${esc(view.amount)} <small>${esc(view.currency)}</small></p>
${items ? `<table class="items" aria-label="Items">${items}</table>` : ''}`;
}

/** The card inputs, with visible labels and the standard autofill tokens (browsers and password managers fill them). */
export function cardFields(holderName: string | undefined): string {
  const year = new Date().getUTCFullYear();
  return `<label for="cc-name">Name on card</label>
<input id="cc-name" name="holderName" autocomplete="cc-name" maxlength="100"${holderName ? ` value="${esc(holderName)}"` : ''} required>
<label for="cc-number">Card number</label>
<input id="cc-number" name="cardNumber" autocomplete="cc-number" inputmode="numeric" maxlength="23" pattern="[0-9 ]{12,23}" required>
<div class="row">
<div><label for="cc-exp-month">Month (MM)</label><input id="cc-exp-month" name="month" autocomplete="cc-exp-month" inputmode="numeric" maxlength="2" placeholder="MM" pattern="[0-9]{1,2}" required></div>
<div><label for="cc-exp-year">Year (YYYY)</label><input id="cc-exp-year" name="year" autocomplete="cc-exp-year" inputmode="numeric" maxlength="4" placeholder="${year + 2}" pattern="[0-9]{2}|[0-9]{4}" required></div>
<div><label for="cc-csc">Security code</label><input id="cc-csc" name="cvv" autocomplete="cc-csc" inputmode="numeric" maxlength="4" pattern="[0-9]{3,4}" required></div>
</div>`;
}

/** The hosted card-update page (the updateCardUrl of a failed renewal). */
export function cardUpdatePage(view: CardPageView, csrf: string, error?: string, holderName?: string): string {
  return `<div class="card"><h1>Update your card for ${esc(view.merchantName)}</h1>
<p class="merchant">${esc(view.planName)}${view.last4 ? ` · the card ending in ${esc(view.last4)} ${view.reason === 'expiring' ? 'expires before the next payment' : 'was declined'}` : ''}</p>
<p class="amount">${esc(view.amount)} <small>${esc(view.currency)}</small></p>
<p>Enter a new card. It is checked now without a charge; ${view.reason === 'expiring' ? 'the next payment is then taken from it on its date' : 'the payment due is then taken at the next attempt'}.</p>
${error ? `<p class="error" role="alert">${esc(error)} You can try again.</p>` : ''}
<form method="post" action="/card/${esc(view.token)}" autocomplete="on">
<input type="hidden" name="csrf" value="${esc(csrf)}">
${cardFields(holderName)}
<button type="submit">Save card</button>
</form></div>`;
}

export function cardUpdatedPage(view: CardPageView): string {
  return `<div class="card"><h1 class="ok">Card updated</h1>
<p class="merchant">${esc(view.merchantName)} · ${esc(view.planName)}</p>
<p>Your new card is on file. The payment due (${esc(view.amount)} ${esc(view.currency)}) is taken at the next attempt.</p>
<p>You can close this page.</p></div>`;
}

/** Stripe has not answered the check yet: the new card replaces the old one once it does. */
export function cardCheckingPage(view: CardPageView): string {
  return `<div class="card"><h1>Card being checked</h1>
<p class="merchant">${esc(view.merchantName)} · ${esc(view.planName)}</p>
<p>Your bank has not answered yet. Your new card replaces the old one as soon as it confirms; nothing is charged now.</p>
<p>You can close this page.</p></div>`;
}

/** A second card sent on one link while the first is checked: that first card decides. */
export function cardLinkUsedPage(view: CardPageView): string {
  return `<div class="card"><h1>This link was already used</h1>
<p class="merchant">${esc(view.merchantName)} · ${esc(view.planName)}</p>
<p>A card was submitted on this page a moment ago and is being checked; this one was not saved. Nothing is charged now.</p>
<p>Open the link again in a minute: if that card was not accepted, you can enter another.</p></div>`;
}

/** `holderName` refills the name after a decline, so only the card has to be typed again. */
export function checkoutPage(view: PageView, csrf: string, error?: string, holderName?: string): string {
  const attemptsLeft = Math.max(0, 3 - view.declines);
  return `<div class="card">${summary(view)}
${error ? `<p class="error" role="alert">${esc(error)}${attemptsLeft > 0 ? ` You can try again (${attemptsLeft} attempt${attemptsLeft === 1 ? '' : 's'} left).` : ''}</p>` : ''}
<form method="post" action="/checkout/${esc(view.token)}" autocomplete="on">
<input type="hidden" name="csrf" value="${esc(csrf)}">
<input type="hidden" name="action" value="pay">
${cardFields(holderName)}
<button type="submit">Pay ${esc(view.amount)} ${esc(view.currency)}</button>
</form>
<form method="post" action="/checkout/${esc(view.token)}">
<input type="hidden" name="csrf" value="${esc(csrf)}">
<input type="hidden" name="action" value="cancel">
<button type="submit" class="secondary">Cancel</button>
</form></div>`;
}

export function threeDsPage(view: PageView, csrf: string): string {
  const button = (action: string, label: string, cls = '') =>
    `<form method="post" action="/3ds/${esc(view.token)}"><input type="hidden" name="csrf" value="${esc(csrf)}"><input type="hidden" name="action" value="${action}"><button type="submit"${cls ? ` class="${cls}"` : ''}>${label}</button></form>`;
  const what = view.cardCheck
    ? `<p class="merchant">${esc(view.merchantName)} · checking your new card (no charge)</p>`
    : `<p class="merchant">${esc(view.merchantName)} · order ${esc(orderRef(view))}</p>
<p class="amount">${esc(view.amount)} <small>${esc(view.currency)}</small></p>`;
  return `<div class="card"><h1>Confirm it is you</h1>
${what}
<p>This is the sandbox 3-D Secure challenge. Choose how your bank answers.</p>
${button('complete', 'Complete')}${button('fail', 'Fail', 'secondary')}</div>`;
}

export type ResultKind = 'succeeded' | 'failed' | 'cancelled';

export function resultPage(kind: ResultKind, view: PageView | undefined, reason?: string): string {
  const titles = view?.cardCheck
    ? { succeeded: ['ok', 'Card updated'], failed: ['bad', 'Card not updated'], cancelled: ['', 'Card not updated'] }
    : {
        succeeded: ['ok', 'Payment successful'],
        failed: ['bad', 'Payment failed'],
        cancelled: ['', 'Payment cancelled'],
      };
  const head = titles[kind];
  return `<div class="card"><h1 class="${head[0]}">${head[1]}</h1>
${view?.cardCheck ? `<p class="merchant">${esc(view.merchantName)}</p>` : view ? `<p class="merchant">${esc(view.merchantName)} · order ${esc(orderRef(view))}</p><p class="amount">${esc(view.amount)} <small>${esc(view.currency)}</small></p>` : ''}
${kind === 'failed' ? `<p>${esc(reasonText(reason))}</p>` : ''}
<p>You can close this page.</p></div>`;
}

export function messagePage(title: string, text: string): string {
  return `<div class="card"><h1>${esc(title)}</h1><p>${esc(text)}</p></div>`;
}
