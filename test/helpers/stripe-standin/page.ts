import type { IntentState } from './state.js';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The stand-in's 3D Secure test page, like Stripe's test-mode one: Complete or Fail. */
export function threeDsPage(pi: IntentState): string {
  const amount = `${(pi.amount / 100).toFixed(2)} ${pi.currency.toUpperCase()}`;
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
