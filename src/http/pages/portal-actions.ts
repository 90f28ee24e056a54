import type { FastifyReply } from 'fastify';
import {
  cancelEndTime,
  cardFromPortal,
  changeFromPortal,
  changeOptions,
  portalView,
  QuoteMoved,
  requireAllowed,
  shownQuote,
  transition,
  type CardCheckOutcome,
  type PortalSubscription,
} from '../../services/portal/index.js';
import type { ChangeResult } from '../../services/plan-change/index.js';
import type { SubscriptionRow } from '../../services/rows.js';
import { overview, sendPortal, type PortalRequest } from './portal-reply.js';
import { cancelConfirmPage, cardPage, changePage, type Notice } from './portal-views.js';
import { reasonText } from './views.js';

const text = (form: Record<string, unknown>, name: string): string => {
  const v = form[name];
  return typeof v === 'string' ? v : '';
};

/** The page's own view of the subscription the form names (already known to be this user's). */
async function drawn(r: PortalRequest, s: SubscriptionRow) {
  const view = await portalView(r.deps.ctx, r.portal);
  const sub = view.subscriptions.find((x) => x.subscriptionId === s.id);
  if (!sub) throw new Error('an own subscription missing from the portal view');
  return { view, sub };
}

async function showChange(r: PortalRequest, reply: FastifyReply, s: SubscriptionRow, notice?: Notice, status = 200) {
  const { view, sub } = await drawn(r, s);
  const options = await changeOptions(r.deps.ctx, r.token, s);
  return sendPortal(reply, status, 'Change plan', changePage(r.base, sub, options, notice), view);
}

function changedNotice(c: { out: ChangeResult; planName: string; charged: string }, sub: PortalSubscription): Notice {
  const { out, planName } = c;
  switch (out.result) {
    case 'CHANGED':
      return { text: `You are now on ${planName}. ${c.charged} was charged.` };
    case 'SCHEDULED': {
      // Not out.nextBillingTime: while a retry waits, that is the retry, which charges the current plan.
      const p = sub.pendingPlan;
      if (p?.afterRetry)
        return {
          text: `${planName} starts with the renewal on ${p.startsAt}; the payment being retried is still for ${sub.planName}.`,
        };
      return { text: `${planName} starts with your next payment${p?.startsAt ? ` on ${p.startsAt}` : ''}.` };
    }
    case 'UNSCHEDULED':
      return { text: `You stay on ${sub.planName}: the change you had planned was withdrawn.` };
    case 'DECLINED':
      return { text: `The payment was declined (${reasonText(out.failReason)}). Your plan did not change.`, bad: true };
    case 'PENDING':
      return { text: 'Your bank has not confirmed the payment yet. Your plan changes as soon as it does.' };
    case 'ENDED':
      return { text: 'The subscription ended meanwhile: the plan did not change.', bad: true };
  }
}

/** What became of a new card, where the subscriber lands: after the form, or back from 3-D Secure. */
export function cardNotice(card: CardCheckOutcome): Notice {
  switch (card.result) {
    case 'updated':
      return { text: 'Your new card is on file.' };
    case 'processing':
      return { text: 'Your bank has not confirmed the new card yet; it replaces the old one as soon as it does.' };
    case 'waiting':
      return {
        text: 'Your bank is still waiting for you to confirm the new card; until then the old card stays on file.',
      };
    case 'failed':
      return {
        text: `Your new card was not saved: ${reasonText(card.failReason)} The card you had stays on file.`,
        bad: true,
      };
  }
}

/** One form of the portal, after the link, its rate limit, its CSRF token and the subscription's owner were checked. */
export async function portalAction(r: PortalRequest, reply: FastifyReply, s: SubscriptionRow): Promise<FastifyReply> {
  const { ctx } = r.deps;
  const action = text(r.form, 'action');
  switch (action) {
    case 'cancel': {
      requireAllowed(r.portal, 'cancel');
      const { view, sub } = await drawn(r, s);
      if (!sub.can.has('cancel'))
        return overview(r, reply, { text: 'This subscription cannot be cancelled now.', bad: true }, 409);
      return sendPortal(reply, 200, 'Cancel subscription', cancelConfirmPage(r.base, sub, cancelEndTime(ctx, s)), view);
    }
    case 'cancel-confirm':
    case 'pause':
    case 'resume': {
      const verb = action === 'cancel-confirm' ? 'cancel' : action;
      await transition(ctx, r.portal, s, verb);
      const { sub } = await drawn(r, s);
      const done = {
        cancel: `Your subscription to ${sub.planName} is cancelled; nothing more is charged.${sub.endTime ? ` It runs until ${sub.endTime}.` : ''}`,
        pause: `${sub.planName} is paused: nothing is charged until you resume it.`,
        resume: `${sub.planName} is active again.${sub.next ? ` Next payment: ${sub.next.amount} on ${sub.next.time}.` : ''}`,
      }[verb];
      return overview(r, reply, { text: done });
    }
    case 'card': {
      requireAllowed(r.portal, 'update-card');
      const { view, sub } = await drawn(r, s);
      return sendPortal(reply, 200, 'Update your card', cardPage(r.base, sub), view);
    }
    case 'card-submit': {
      const holderName = text(r.form, 'holderName').trim();
      const out = await cardFromPortal(
        ctx,
        r.portal,
        s,
        {
          holderName,
          cardNumber: text(r.form, 'cardNumber').replace(/[\s-]/g, ''),
          month: text(r.form, 'month').trim(),
          year: text(r.form, 'year').trim(),
          cvv: text(r.form, 'cvv').trim(),
        },
        r.token,
      );
      if (out.result === 'three_ds') return reply.code(303).header('location', out.redirectUrl).send();
      if (out.result === 'declined') {
        const { view, sub } = await drawn(r, s);
        const page = cardPage(r.base, sub, reasonText(out.failReason), holderName);
        return sendPortal(reply, 200, 'Update your card', page, view);
      }
      return overview(r, reply, cardNotice({ result: out.result }));
    }
    case 'change': {
      requireAllowed(r.portal, 'change-plan');
      return showChange(r, reply, s);
    }
    case 'change-submit': {
      requireAllowed(r.portal, 'change-plan');
      const planId = text(r.form, 'planId');
      const when = text(r.form, 'when');
      let shown: Parameters<typeof changeFromPortal>[3] = 'PERIOD_END';
      if (when === 'NOW') {
        const q = shownQuote(ctx, r.token, s.id, planId, {
          at: text(r.form, 'q_at'),
          charge: text(r.form, 'q_charge'),
          basis: text(r.form, 'q_basis'),
          mac: text(r.form, 'q_mac'),
        });
        if (!q)
          return showChange(
            r,
            reply,
            s,
            { text: 'The amount shown was out of date. Here it is again; nothing was charged.', bad: true },
            409,
          );
        shown = q;
      } else if (when !== 'PERIOD_END') return showChange(r, reply, s);
      let changed: Awaited<ReturnType<typeof changeFromPortal>>;
      try {
        changed = await changeFromPortal(ctx, s, planId, shown);
      } catch (e) {
        if (!(e instanceof QuoteMoved)) throw e;
        const text =
          'The amount changed since the page was shown (a payment or a credit moved). Here is the new amount; nothing was charged.';
        return showChange(r, reply, s, { text, bad: true }, 409);
      }
      const { sub } = await drawn(r, s);
      return overview(r, reply, changedNotice(changed, sub));
    }
    default:
      return overview(r, reply);
  }
}
