// What the documents benchmarks share: a paygate build to run (this checkout's, or another
// checkout's given with --without, for "the code before invoices"), its processes, its merchant,
// signed PAY requests and autocannon's figures for them.
import { spawn, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HERE = fileURLToPath(new URL('..', import.meta.url));
export const KEY = Buffer.alloc(32, 7).toString('base64');
const require = createRequire(import.meta.url);

export const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
export const textArg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};

/** A checkout with its dist built: { root, bin }. */
export function build(root) {
  const dir = resolve(root);
  if (!existsSync(join(dir, 'dist/cli/main.js')))
    throw new Error(`${dir} has no build: run npx tsc -p tsconfig.build.json there`);
  return { root: dir, bin: join(dir, 'bin/paygate.js') };
}

export function start(cmd, args, env, pattern) {
  const proc = spawn(cmd, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start: ${cmd} ${args.join(' ')}\n${out}`)), 30_000);
    proc.stdout.on('data', (d) => {
      if (out.length < 100_000) out += d.toString();
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1], output: () => out });
      }
    });
    proc.stderr.on('data', (d) => {
      if (out.length < 100_000) out += d.toString();
    });
    proc.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

export async function stop(proc) {
  if (proc.exitCode !== null) return;
  const done = new Promise((r) => proc.on('exit', r));
  proc.kill('SIGTERM');
  await done;
}

/** `paygate --json ARGS` of a build against a database (a path or a postgres:// URL). */
export function cli(b, db, args) {
  const env = { PATH: process.env.PATH, PAYGATE_VAULT_KEY: KEY };
  const dbArgs = db.startsWith('postgres') ? [] : ['--db', db];
  if (db.startsWith('postgres')) env.PAYGATE_DB = db;
  const r = spawnSync(process.execPath, [b.bin, ...dbArgs, '--json', ...args], { encoding: 'utf8', env });
  if (r.status !== 0) throw new Error(`paygate ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * A merchant signing v2. With `emails`, its customer emails are on with a sender address: the
 * worst case, each successful charge writes a receipt email beside its invoice.
 */
export function createMerchant(b, db, { emails = false } = {}) {
  const m = cli(b, db, ['merchant', 'create', '--name', 'Bench Shop', '--signature-version', '2']);
  if (emails)
    cli(b, db, ['merchant', 'update', m.merchantId, '--email-from', 'billing@shop.example', '--customer-emails', 'on']);
  return m;
}

/**
 * Signed v2 PAY requests, each with its own requestId/relationId and (unless `payerEmail` is
 * false) the payer's email address, which a receipt email needs.
 */
export function payRequests(m, { payerEmail = true } = {}) {
  const year = String(new Date().getUTCFullYear() + 2);
  const cardInfo = JSON.stringify({
    holderName: 'Bench',
    cardNumber: '4242424242424242',
    month: '12',
    year,
    cvv: '123',
  });
  const billingAddress = JSON.stringify({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' });
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const path = `/payment/${m.apiKey}/transaction`;
  let seq = 0;
  return () => {
    const i = seq++;
    const body = JSON.stringify({
      merchantId: m.merchantId,
      requestId: `${run}-${i}`,
      relationId: `${run}-${i}`,
      paymentType: 'PAY',
      payAmount: '10.00',
      currency: 'USD',
      cardInfo,
      ...(payerEmail ? { billingAddress } : {}),
    });
    const t = Math.floor(Date.now() / 1000);
    const sig = createHmac('sha256', m.secret).update(`${t}.POST.${path}.${body}`).digest('hex');
    return {
      method: 'POST',
      path,
      body,
      headers: { 'content-type': 'application/json', 'x-paygate-signature': `t=${t},v2=${sig}` },
    };
  };
}

/** autocannon against one server: req/s, p50/p99 in ms, 2xx and everything else. */
export async function load(url, requests, { duration, connections }) {
  const autocannon = require('autocannon');
  const r = await autocannon({
    url,
    connections,
    duration,
    requests: Array.isArray(requests) ? requests : [{ setupRequest: (req) => ({ ...req, ...requests() }) }],
  });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    ok: r['2xx'],
    errors: r.errors + r.timeouts + r.non2xx,
  };
}

/** The SMTP sink (bench/smtp-sink.mjs) in its own process: { url, stop() → messages accepted }. */
export async function smtpSink() {
  const s = await start(process.execPath, [join(HERE, 'bench/smtp-sink.mjs')], {}, /listening on port (\d+)/);
  return {
    url: `smtp://127.0.0.1:${s.url}`,
    async stop() {
      await stop(s.proc);
      return Number(/accepted (\d+)/.exec(s.output())?.[1] ?? 0);
    },
  };
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
