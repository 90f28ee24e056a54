#!/usr/bin/env node
// `npm run bench`: every benchmark, each beside its baseline, in one run on this machine.
// Usage: npm run bench [-- NAME ... [--OPTION VALUE ...]]   (default: all). Build first (npm ci does).
// Names: renewals, http, report (SQLite), renewals-pg, http-pg (PostgreSQL), stripe (a Stripe PAY
// against the local stand-in beside a sandbox PAY), stripe-renewals and stripe-renewals-pg (10,000
// due Stripe renewals at Stripe's live limit), documents (invoice PDFs: render cost and the event
// loop's delay), documents-fetch and documents-fetch-pg (PAY's latency while a client fetches
// invoice PDFs, beside it without), invoices and invoices-pg (20,000 renewals by four `renew`
// processes: invoice numbers 1..20,000 with no gap), pay-service (a sandbox PAY through the
// service in-process, no HTTP: what the services and the store cost alone), and the groups
// `sqlite` and `pg`.
// Not in the default run, because they need the code before invoices as --without DIR (a checkout
// with its dist built): documents-cost and documents-cost-pg (PAY and renewals with documents on
// beside that code), documents-statements (statements per PAY and renewal in PostgreSQL's log)
// and documents-waits (what a PAY waits on in PostgreSQL).
// The PostgreSQL runs start their own throwaway cluster (Debian's postgresql
// package) unless PAYGATE_BENCH_PG_URL gives a superuser URL of a server to use instead.
import { spawnSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

const BENCHES = {
  renewals: ['renewals.mjs'],
  http: ['http.mjs'],
  report: ['report.mjs'],
  'renewals-pg': ['renewals.mjs', '--pg'],
  'http-pg': ['http.mjs', '--pg'],
  stripe: ['stripe.mjs'],
  'stripe-renewals': ['stripe-renewals.mjs'],
  'stripe-renewals-pg': ['stripe-renewals.mjs', '--pg'],
  documents: ['documents.mjs'],
  'documents-cost': ['documents-cost.mjs'],
  'documents-cost-pg': ['documents-cost.mjs', '--pg'],
  'documents-statements': ['documents-statements.mjs'],
  'documents-waits': ['documents-waits.mjs', '--pg'],
  'documents-fetch': ['documents-fetch.mjs'],
  'documents-fetch-pg': ['documents-fetch.mjs', '--pg'],
  invoices: ['invoices-gapless.mjs'],
  'invoices-pg': ['invoices-gapless.mjs', '--pg'],
  'pay-service': ['pay-service.mjs'],
};
const GROUPS = { sqlite: ['renewals', 'http', 'report'], pg: ['renewals-pg', 'http-pg'] };
const all = [
  ...GROUPS.sqlite,
  'pay-service',
  'stripe',
  'stripe-renewals',
  'documents',
  'documents-fetch',
  'invoices',
  ...GROUPS.pg,
  'stripe-renewals-pg',
  'documents-fetch-pg',
  'invoices-pg',
];

// Names pick benchmarks; options (`--duration 3`, `--due 20000`) go to every benchmark chosen,
// each with its value when one follows.
const chosen = [];
const passed = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (!a.startsWith('-')) chosen.push(a);
  else {
    passed.push(a);
    const v = argv[i + 1];
    if (v !== undefined && !v.startsWith('-') && !(v in BENCHES) && !(v in GROUPS)) passed.push(argv[++i]);
  }
}
const names = (chosen.length > 0 ? chosen : all).flatMap((n) => GROUPS[n] ?? [n]);
const pgUrl = process.env.PAYGATE_BENCH_PG_URL;

console.log(`# paygate benchmarks — ${new Date().toISOString().slice(0, 10)}`);
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}\n`,
);

let failed = false;
for (const name of names) {
  const spec = BENCHES[name];
  if (!spec) {
    console.error(
      `unknown benchmark ${name} (have: ${Object.keys(BENCHES).join(', ')}, or the groups ${Object.keys(GROUPS).join(', ')})`,
    );
    failed = true;
    continue;
  }
  const [file, ...args] = spec;
  if (args.includes('--pg') && pgUrl) args.push(pgUrl);
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', fileURLToPath(new URL(`./${file}`, import.meta.url)), ...args, ...passed],
    { stdio: 'inherit' },
  );
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
