import { randomBytes } from 'node:crypto';

/** Escape text for HTML content and attribute values (every page value goes through this). */
export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export const newNonce = (): string => randomBytes(16).toString('base64');

/**
 * Strict CSP (SPEC §11): nothing may load but our own nonce'd inline style; forms post only to
 * us and to the redirect targets the transaction names (browsers apply form-action to the
 * redirect that answers a form post).
 */
export function contentSecurityPolicy(nonce: string, formTargets: readonly string[]): string {
  const targets = [...new Set(formTargets)].join(' ');
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `form-action 'self'${targets ? ` ${targets}` : ''}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

const CSS = `
:root{color-scheme:light dark;--bg:#f4f5f7;--card:#fff;--text:#1d2330;--muted:#5d6675;--line:#d9dde3;--accent:#2f5bea;--accent-text:#fff;--bad:#b42318;--bad-bg:#fdecea;--good:#1a7f37}
@media (prefers-color-scheme:dark){:root{--bg:#12151b;--card:#1b2029;--text:#e8ebf0;--muted:#a0a8b5;--line:#2e3542;--accent:#6d8cff;--accent-text:#0b0e14;--bad:#ff8a80;--bad-bg:#3a1d1d;--good:#5cd27d}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--text)}
main{max-width:440px;margin:0 auto;padding:24px 16px}
.card{background:var(--card);border:1px solid var(--line);border-radius:14px;padding:22px;box-shadow:0 1px 3px rgba(0,0,0,.06)}
h1{font-size:1.15rem;margin:0 0 4px}
.merchant{color:var(--muted);font-size:.95rem;margin:0 0 16px}
.amount{font-size:2rem;font-weight:650;letter-spacing:-.01em;margin:0 0 12px}
.amount small{font-size:1rem;color:var(--muted);font-weight:500}
table.items{width:100%;border-collapse:collapse;margin:0 0 18px;font-size:.95rem}
table.items td{padding:6px 0;border-top:1px solid var(--line)}
table.items td.n{text-align:right;white-space:nowrap;color:var(--muted)}
label{display:block;font-weight:560;font-size:.9rem;margin:12px 0 4px}
input{width:100%;font:inherit;padding:12px;border:1px solid var(--line);border-radius:10px;background:transparent;color:inherit}
input:focus{outline:2px solid var(--accent);outline-offset:1px}
.row{display:flex;gap:10px}.row>div{flex:1;min-width:0}
h1,.merchant,.amount,table.items td{overflow-wrap:anywhere}
.sandbox{background:#fff4ce;color:#5c4400;border:1px solid #e8d48a;border-radius:10px;padding:8px 12px;margin:0 0 12px;font-size:.9rem}
button{width:100%;font:inherit;font-weight:600;padding:13px;margin-top:18px;border-radius:10px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-text);cursor:pointer}
button.secondary{background:transparent;color:var(--text);border-color:var(--line);margin-top:10px}
.error{background:var(--bad-bg);color:var(--bad);border-radius:10px;padding:10px 12px;margin:0 0 8px}
.ok{color:var(--good)}.bad{color:var(--bad)}
.foot{color:var(--muted);font-size:.8rem;text-align:center;margin-top:14px}
main:has(.wide){max-width:760px}
h2{font-size:1.05rem;margin:0 0 8px;overflow-wrap:anywhere}
a{color:var(--accent)}a:focus,button:focus{outline:2px solid var(--accent);outline-offset:2px}
.sub{margin:0 0 16px}
dl{display:grid;grid-template-columns:minmax(7em,auto) 1fr;gap:6px 12px;margin:0 0 8px}
dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
.notice{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--good);border-radius:10px;padding:10px 12px;margin:0 0 12px}
.scroll{overflow-x:auto;margin-top:16px;position:relative}
table.history caption{text-align:left;font-weight:600;padding:0 0 6px}
table.history th{text-align:left;font-weight:560;color:var(--muted);padding:6px 8px 6px 0}
table.history td{padding:6px 8px 6px 0;vertical-align:top}
table.history th,table.history td{white-space:nowrap}
table.history td.docs{white-space:normal}table.history td.docs a{white-space:nowrap}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.option{border-top:1px solid var(--line);padding-top:14px;margin-top:14px}
`;

const SANDBOX_NOTE =
  '<p class="sandbox" role="note"><strong>Sandbox</strong> — test mode: no real money moves. Use a test card such as 4242 4242 4242 4242.</p>';

/** `sandbox` marks every page of a sandbox channel, so nobody mistakes it for a real payment. */
export function layout(nonce: string, title: string, body: string, sandbox = false): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${esc(title)}</title><style nonce="${esc(nonce)}">${CSS}</style></head>
<body><main>${sandbox ? SANDBOX_NOTE : ''}${body}<p class="foot">Secured by paygate${sandbox ? ' · sandbox' : ''}</p></main></body></html>`;
}
