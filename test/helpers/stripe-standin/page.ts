import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseForm, str } from './form.js';
import type { AccountState } from './state.js';

/** What the page needs of a PaymentIntent or a SetupIntent waiting on its challenge. */
export interface Challenge {
  id: string;
  /** 'payment_intent' or 'setup_intent': the names of the query parameters on the way back. */
  object: 'payment_intent' | 'setup_intent';
  clientSecret: string;
  status: string;
  returnUrl: string | null;
  /** null for a SetupIntent: nothing is charged. */
  amount: number | null;
  currency: string | null;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The stand-in's 3D Secure test page, like Stripe's test-mode one: Complete or Fail. */
function threeDsPage(pi: Challenge): string {
  const amount =
    pi.amount !== null && pi.currency
      ? `${(pi.amount / 100).toFixed(2)} ${pi.currency.toUpperCase()}`
      : 'a card saved for later payments';
  const form = (outcome: 'pass' | 'fail', label: string) =>
    `<form method="post" action="/3ds/${esc(pi.id)}"><input type="hidden" name="client_secret" value="${esc(pi.clientSecret)}">` +
    `<input type="hidden" name="outcome" value="${outcome}"><button type="submit" id="${outcome}">${label}</button></form>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>3D Secure 2 Test Page</title></head>
<body><h1>3D Secure 2 Test Page</h1>
<p>Stand-in for Stripe's test-mode authentication of ${esc(amount)}.</p>
${form('pass', 'Complete')}
${form('fail', 'Fail')}
</body></html>`;
}

export interface ThreeDsDeps {
  find: (intentId: string) => { acct: AccountState; pi: Challenge } | undefined;
  complete: (acct: AccountState, intentId: string, passed: boolean) => void;
}

/**
 * GET /3ds/{intent}?client_secret=… shows the page; POST /3ds/{intent} (or GET …/complete) with
 * outcome=pass|fail finishes the intent, then the browser is sent to the intent's return_url
 * with Stripe's query parameters. A second visit changes nothing and redirects again.
 */
export function threeDsRequest(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  raw: string,
  deps: ThreeDsDeps,
): void {
  const [, , intentId, action] = url.pathname.split('/');
  const found = intentId ? deps.find(intentId) : undefined;
  const form = req.method === 'POST' ? parseForm(raw) : parseForm(url.search.slice(1));
  if (!found || str(form, 'client_secret') !== found.pi.clientSecret) {
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Not found</title><p>This authentication link is not valid.</p>');
    return;
  }
  const { acct, pi } = found;
  if (req.method !== 'POST' && action !== 'complete') {
    // No form-action: the answer redirects to the intent's return_url, which redirects on to the
    // shop, and browsers hold every hop of a form's redirects to form-action (Stripe's page does not restrict it).
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'" });
    res.end(threeDsPage(pi));
    return;
  }
  const outcome = str(form, 'outcome');
  if (outcome !== 'pass' && outcome !== 'fail') {
    res.writeHead(400, { 'content-type': 'text/plain' });
    res.end('outcome must be pass or fail');
    return;
  }
  if (pi.status === 'requires_action') deps.complete(acct, pi.id, outcome === 'pass');
  const now = deps.find(pi.id)?.pi ?? pi;
  const status = now.status === 'succeeded' || now.status === 'processing' ? 'succeeded' : 'failed';
  if (!pi.returnUrl) {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Authentication ${status}</title><p>Authentication ${status}.</p>`);
    return;
  }
  const back = new URL(pi.returnUrl);
  back.searchParams.set(pi.object, pi.id);
  back.searchParams.set(`${pi.object}_client_secret`, pi.clientSecret);
  back.searchParams.set('redirect_status', status);
  res.writeHead(303, { location: back.toString() });
  res.end();
}

/** The intent of either kind behind a 3DS link, and its account. */
export function challengeOf(accounts: AccountState[], id: string): { acct: AccountState; pi: Challenge } | undefined {
  for (const acct of accounts) {
    const pi = acct.intents.get(id);
    if (pi)
      return {
        acct,
        pi: {
          id,
          object: 'payment_intent',
          clientSecret: pi.clientSecret,
          status: pi.status,
          returnUrl: pi.returnUrl,
          amount: pi.amount,
          currency: pi.currency,
        },
      };
    const si = acct.setupIntents.get(id);
    if (si)
      return {
        acct,
        pi: {
          id,
          object: 'setup_intent',
          clientSecret: si.clientSecret,
          status: si.status,
          returnUrl: si.returnUrl,
          amount: null,
          currency: null,
        },
      };
  }
  return undefined;
}
