import type { ChangeOption, DocumentLink, PortalSubscription, PortalView } from '../../services/portal/index.js';
import { esc } from './html.js';
import { cardFields, reasonText } from './views.js';

/** What every portal form carries: where it posts, its CSRF token, the action, the subscription. */
export interface FormBase {
  path: string;
  csrf: string;
}

function form(
  f: FormBase,
  action: string,
  subscriptionId: string,
  label: string,
  o: { secondary?: boolean; extra?: string } = {},
): string {
  return `<form method="post" action="${esc(f.path)}">
<input type="hidden" name="csrf" value="${esc(f.csrf)}"><input type="hidden" name="action" value="${esc(action)}">
<input type="hidden" name="subscriptionId" value="${esc(subscriptionId)}">${o.extra ?? ''}
<button type="submit"${o.secondary ? ' class="secondary"' : ''}>${esc(label)}</button></form>`;
}

const STATUS_TEXT: Record<string, string> = {
  ACTIVE: 'Active',
  PAUSED: 'Paused: nothing is charged until you resume it',
  CANCELLED: 'Cancelled',
  FAILED: 'Ended: its payments failed',
  EXPIRED: 'Not started: the first payment did not go through',
  INCOMPLETE: 'Waiting for the first payment to be confirmed',
};

function statusLine(s: PortalSubscription): string {
  const text = STATUS_TEXT[s.status] ?? s.status;
  if (s.status === 'CANCELLED' && s.endTime) return `${text}: it runs until ${esc(s.endTime)}`;
  return esc(text);
}

/** A document's page, and its PDF (whose link names the document for a screen reader). */
const documentLinks = (title: string, d: DocumentLink): string =>
  `<a href="${esc(d.url)}">${title} ${esc(d.number)}</a> (<a href="${esc(d.pdfUrl)}">PDF<span class="visually-hidden"> of ${esc(d.number)}</span></a>)`;

/** The record's invoice and the credit notes of its refunds, each as a page and a PDF. */
function documents(r: PortalSubscription['history'][number]): string {
  const parts: string[] = [];
  if (r.invoice) parts.push(documentLinks('Invoice', r.invoice));
  for (const n of r.creditNotes) parts.push(documentLinks('Credit note', n));
  return parts.join('<br>');
}

// The history table does not wrap (it scrolls on a phone), but for a document's "(PDF)": a discount takes two short lines under the amount.
function history(s: PortalSubscription): string {
  if (s.history.length === 0) return '<p class="merchant">No payments yet.</p>';
  const rows = s.history
    .map(
      (r) =>
        `<tr><td>${esc(r.time)}</td><td>${esc(r.type)}</td><td class="n">${esc(r.amount)}${r.discount ? `<br><small>${esc(r.discount.label)}<br>${esc(r.discount.amount)}</small>` : ''}</td><td>${esc(r.status)}${r.failReason ? `<br><small>${esc(reasonText(r.failReason))}</small>` : ''}</td><td class="docs">${documents(r)}</td></tr>`,
    )
    .join('');
  return `<div class="scroll" role="region" aria-label="Billing history of ${esc(s.planName)}, subscription ${esc(s.subscriptionCode)}" tabindex="0"><table class="items history">
<caption>Billing history</caption>
<thead><tr><th scope="col">Date</th><th scope="col">Type</th><th scope="col" class="n">Amount</th><th scope="col">Status</th><th scope="col">Documents</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

/** A change at period end: from the next payment, or — a retry of the current plan waiting first — from the renewal after it. */
function pendingPlanFact(s: PortalSubscription, p: NonNullable<PortalSubscription['pendingPlan']>): [string, string] {
  if (!p.afterRetry) return ['From the next payment', esc(p.name)];
  return [
    'Plan change',
    `${esc(p.name)} from the renewal on ${esc(p.startsAt ?? '')}<br><small>The payment being retried is for ${esc(s.planName)}.</small>`,
  ];
}

function subscriptionCard(f: FormBase, s: PortalSubscription): string {
  const facts: Array<[string, string]> = [
    ['Plan', `${esc(s.planName)}<br>${esc(s.price)}`],
    ['Status', statusLine(s)],
  ];
  if (s.next)
    facts.push([
      s.next.retry ? 'Next attempt' : 'Next payment',
      `${esc(s.next.amount)} on ${esc(s.next.time)}${s.next.discount ? `<br><small>${esc(s.next.discount.label)}: ${esc(s.next.discount.amount)}</small>` : ''}`,
    ]);
  if (s.coupon) facts.push(['Coupon', esc(s.coupon)]);
  if (s.pendingPlan) facts.push(pendingPlanFact(s, s.pendingPlan));
  if (s.card) facts.push(['Card', `${esc(s.card.label)}, expires ${esc(s.card.expiry)}`]);
  const retryNote = s.next?.retry
    ? `<p class="error" role="status">Your last payment failed${s.can.has('update-card') ? '; update your card and it is tried again at once' : '; please contact the shop'}.</p>`
    : '';
  const buttons = [
    s.can.has('update-card') ? form(f, 'card', s.subscriptionId, 'Update card') : '',
    s.can.has('change-plan') ? form(f, 'change', s.subscriptionId, 'Change plan', { secondary: true }) : '',
    s.can.has('pause') ? form(f, 'pause', s.subscriptionId, 'Pause subscription', { secondary: true }) : '',
    s.can.has('resume') ? form(f, 'resume', s.subscriptionId, 'Resume subscription') : '',
    s.can.has('cancel') ? form(f, 'cancel', s.subscriptionId, 'Cancel subscription', { secondary: true }) : '',
  ].join('');
  return `<section class="card sub" aria-labelledby="h-${esc(s.subscriptionId)}">
<h2 id="h-${esc(s.subscriptionId)}">${esc(s.planName)} <small>subscription ${esc(s.subscriptionCode)}</small></h2>${retryNote}
<dl>${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('')}</dl>
${buttons}${history(s)}</section>`;
}

function header(view: PortalView, notice?: Notice): string {
  const back = view.returnUrl ? `<p><a href="${esc(view.returnUrl)}">Back to ${esc(view.merchantName)}</a></p>` : '';
  return `<h1>Your subscriptions with ${esc(view.merchantName)}</h1>${back}${noticeHtml(notice)}`;
}

export interface Notice {
  text: string;
  bad?: boolean;
}

const noticeHtml = (n: Notice | undefined): string =>
  n ? `<p class="${n.bad ? 'error' : 'notice'}" role="${n.bad ? 'alert' : 'status'}">${esc(n.text)}</p>` : '';

export function portalPage(f: FormBase, view: PortalView, notice?: Notice): string {
  const subs =
    view.subscriptions.length === 0
      ? '<div class="card"><p>You have no subscriptions here.</p></div>'
      : view.subscriptions.map((s) => subscriptionCard(f, s)).join('');
  return `<div class="wide">${header(view, notice)}${subs}</div>`;
}

const backLink = (f: FormBase, text = 'Back to your subscriptions'): string =>
  `<p><a href="${esc(f.path)}">${esc(text)}</a></p>`;

export function cancelConfirmPage(f: FormBase, s: PortalSubscription, endTime: string): string {
  return `<div class="card"><h1>Cancel ${esc(s.planName)}?</h1>
<p>If you cancel now, nothing more is charged and your subscription ends on <strong>${esc(endTime)}</strong>. You keep it until then.</p>
${form(f, 'cancel-confirm', s.subscriptionId, 'Yes, cancel it')}
${backLink(f, 'No, keep my subscription')}</div>`;
}

export function cardPage(f: FormBase, s: PortalSubscription, error?: string, holderName?: string): string {
  return `<div class="card"><h1>Update the card for ${esc(s.planName)}</h1>
${s.card ? `<p class="merchant">On file now: ${esc(s.card.label)}, expires ${esc(s.card.expiry)}</p>` : ''}
<p>Your new card is checked now without a charge${s.next?.retry ? '; the payment that failed is then tried again at once' : ''}.</p>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="${esc(f.path)}" autocomplete="on">
<input type="hidden" name="csrf" value="${esc(f.csrf)}"><input type="hidden" name="action" value="card-submit">
<input type="hidden" name="subscriptionId" value="${esc(s.subscriptionId)}">
${cardFields(holderName)}
<button type="submit">Save card</button>
</form>${backLink(f)}</div>`;
}

function option(f: FormBase, s: PortalSubscription, o: ChangeOption): string {
  const planField = `<input type="hidden" name="planId" value="${esc(o.planId)}">`;
  const now =
    'unavailable' in o.now
      ? `<p class="merchant">A change now is not possible: ${esc(o.now.unavailable)}.</p>`
      : `<p>Change now: <strong>${esc(o.now.charge)}</strong> is charged at once to your card (the new plan's price${o.now.discount ? `, less ${esc(o.now.discount)}` : ''}, less the unused part of this period and any credit you hold, ${esc(o.now.credit)}), and the new plan starts today.</p>
${form(f, 'change-submit', s.subscriptionId, `Change now and pay ${o.now.charge}`, {
  extra: `${planField}<input type="hidden" name="when" value="NOW">${Object.entries(o.now.quote)
    .map(([k, v]) => `<input type="hidden" name="q_${esc(k)}" value="${esc(v)}">`)
    .join('')}`,
})}`;
  const later = o.periodEnd
    ? `<p>Or at the end of this period: nothing is charged now; ${esc(o.price)} starts on ${esc(o.periodEnd.startsAt)}${o.periodEnd.afterRetry ? ` (the payment being retried is still for ${esc(s.planName)})` : ''}${o.periodEnd.firstCharge ? `; its first charge is ${esc(o.periodEnd.firstCharge)}` : ''}.</p>
${form(f, 'change-submit', s.subscriptionId, 'Change at period end', { secondary: true, extra: `${planField}<input type="hidden" name="when" value="PERIOD_END">` })}`
    : '';
  return `<section class="option" aria-labelledby="p-${esc(o.planId)}"><h2 id="p-${esc(o.planId)}">${esc(o.planName)}</h2>
<p class="merchant">${esc(o.price)}</p>${now}${later}</section>`;
}

export function changePage(f: FormBase, s: PortalSubscription, options: ChangeOption[], notice?: Notice): string {
  const body =
    options.length === 0 ? '<p>There is no other plan to change to.</p>' : options.map((o) => option(f, s, o)).join('');
  return `<div class="card"><h1>Change the plan of ${esc(s.planName)}</h1>
<p class="merchant">Now: ${esc(s.price)}</p>${noticeHtml(notice)}${body}${backLink(f)}</div>`;
}
