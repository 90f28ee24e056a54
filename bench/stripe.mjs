#!/usr/bin/env node
// Stripe channel benchmark (issue 14). Run: `npx tsc -p tsconfig.build.json && node bench/stripe.mjs`
// (or `npm run bench -- stripe`). Options: --duration S (default 10), --connections N (default 20),
// --rounds R (default 3: the measurements take turns R times; the table shows each one's median
// round and every round's ratio is listed, because a shared 2-core machine is noisy).
//
// What it shows: the cost paygate adds per external call. One `paygate serve --no-rate-limit
// --no-renew` (log level info), signed (v2) PAY transactions with card 4242…, each with its own
// requestId/relationId:
//  1. a sandbox merchant: the charge is paygate's own ledger, in the same database transaction flow;
//  2. a Stripe merchant against the local Stripe stand-in (test/helpers/stripe-standin, run in its
//     own process through tsx): each PAY makes three calls with the official client
//     (PaymentMethod, PaymentIntent, confirm), each with its Idempotency-Key, before it answers;
//  3. the same three calls without paygate: the official client in a process of its own, with as
//     many concurrent workers as autocannon has connections, straight to the stand-in — what the
//     client and the stand-in cost by themselves, i.e. the floor of (2);
//  4. the stand-in alone: POST /v1/payment_methods with a card and an Idempotency-Key, straight
//     from autocannon — one of those three calls, without the client.
// The stand-in is a test double (in memory, no network, no issuer): against Stripe itself each
// call adds Stripe's own latency (typically hundreds of milliseconds), which no local figure shows.
import { spawn, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/paygate.js');
const KEY = Buffer.alloc(32, 7).toString('base64');
const require = createRequire(import.meta.url);

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

// ---- child mode: the stand-in, one account per round (its state only grows during a run) ----
if (process.argv[2] === '--standin-server') {
  const { register } = await import('tsx/esm/api');
  register();
  const { startStripeStandin } = await import('../test/helpers/stripe-standin/index.ts');
  const s = await startStripeStandin();
  const keys = Array.from({ length: Number(process.argv[3] ?? 1) }, () => s.createAccount().secretKey);
  console.log(`listening on ${s.url} keys ${keys.join(',')}`);
  process.on('SIGTERM', () => s.close().then(() => process.exit(0)));
} else if (process.argv[2] === '--direct-client') {
  await directClient(
    process.argv[3],
    process.argv[4],
    Number(process.argv[5]),
    Number(process.argv[6]),
    process.argv[7],
  );
} else {
  await main();
}

/** Child mode: a PAY's three calls (PaymentMethod, PaymentIntent, confirm) with the official client, as paygate makes them. */
async function directClient(url, key, duration, workers, tag) {
  const Stripe = (await import('stripe')).default;
  const u = new URL(url);
  const stripe = new Stripe(key, {
    host: u.hostname,
    port: Number(u.port),
    protocol: 'http',
    maxNetworkRetries: 0,
    telemetry: false,
  });
  const year = new Date().getUTCFullYear() + 2;
  let seq = 0;
  const pay = async () => {
    const base = `${tag}:${seq++}`;
    const pm = await stripe.paymentMethods.create(
      { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: year, cvc: '123' } },
      { idempotencyKey: `${base}:payment_method` },
    );
    const pi = await stripe.paymentIntents.create(
      { amount: 1000, currency: 'usd', payment_method: pm.id, allowed_payment_method_types: ['card'] },
      { idempotencyKey: `${base}:payment_intent` },
    );
    const done = await stripe.paymentIntents.confirm(
      pi.id,
      { return_url: 'http://127.0.0.1:9/3ds/return' },
      { idempotencyKey: `${base}:confirm` },
    );
    if (done.status !== 'succeeded') throw new Error(`intent ${done.status}`);
  };
  const run = async (seconds) => {
    const latencies = [];
    let errors = 0;
    const until = performance.now() + seconds * 1000;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: workers }, async () => {
        while (performance.now() < until) {
          const t = performance.now();
          try {
            await pay();
            latencies.push(performance.now() - t);
          } catch {
            errors++;
          }
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    const at = (q) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
    return {
      rps: latencies.length / ((performance.now() - t0) / 1000),
      p50: at(0.5),
      p99: at(0.99),
      ok: latencies.length,
      errors,
    };
  };
  await run(1); // warm-up
  console.log(JSON.stringify(await run(duration)));
}

function start(cmd, args, env, pattern) {
  const proc = spawn(cmd, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start: ${cmd} ${args.join(' ')}\n${out}`)), 30_000);
    const onData = (d) => {
      if (out.length < 100_000) out += d.toString();
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1], match: m });
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

async function stop(proc) {
  if (proc.exitCode !== null) return;
  const done = new Promise((r) => proc.on('exit', r));
  proc.kill('SIGTERM');
  await done;
}

async function load(url, requestOf, { duration, connections }) {
  const autocannon = require('autocannon');
  let n = 0;
  const result = await autocannon({
    url,
    connections,
    duration,
    requests: [{ setupRequest: (req) => ({ ...req, ...requestOf(n++) }) }],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

function cli(dbPath, args, env = {}, input) {
  const r = spawnSync(process.execPath, [BIN, '--db', dbPath, '--json', ...args], {
    encoding: 'utf8',
    input: input ?? '',
    env: { PATH: process.env.PATH, PAYGATE_VAULT_KEY: KEY, ...env },
  });
  if (r.status !== 0) throw new Error(`paygate ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function main() {
  if (!existsSync(join(ROOT, 'dist/cli/main.js'))) {
    console.error('build first: npx tsc -p tsconfig.build.json');
    process.exit(1);
  }
  const duration = arg('--duration', 10);
  const connections = arg('--connections', 20);
  const rounds = Math.max(1, arg('--rounds', 3));
  const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-stripe-'));
  const year = String(new Date().getUTCFullYear() + 2);
  const cardInfo = JSON.stringify({
    holderName: 'Bench',
    cardNumber: '4242424242424242',
    month: '12',
    year,
    cvv: '123',
  });
  const run = Date.now().toString(36);
  const logLevel = process.env.PAYGATE_LOG_LEVEL ?? 'info';
  const results = { sandbox: [], stripe: [], direct: [], standin: [] };
  const standin = await start(
    process.execPath,
    [SELF, '--standin-server', String(rounds)],
    {},
    /listening on (http:\/\/\S+) keys (\S+)/,
  );
  const keys = standin.match[2].split(',');
  const env = { PAYGATE_STRIPE_API_URL: standin.url };
  try {
    const dbPath = join(dir, 'paygate.db');
    const sandbox = cli(dbPath, ['merchant', 'create', '--name', 'Bench sandbox', '--signature-version', '2']);
    const stripe = cli(dbPath, ['merchant', 'create', '--name', 'Bench Stripe', '--signature-version', '2']);
    let seq = 0;
    const payRequest = (m) => () => {
      const i = seq++;
      const path = `/payment/${m.apiKey}/transaction`;
      const body = JSON.stringify({
        merchantId: m.merchantId,
        requestId: `${run}-${i}`,
        relationId: `${run}-${i}`,
        paymentType: 'PAY',
        payAmount: '10.00',
        currency: 'USD',
        cardInfo,
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
    const pmRequest = (key) => () => {
      const i = seq++;
      return {
        method: 'POST',
        path: '/v1/payment_methods',
        body: `type=card&card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=${year}&card[cvc]=123`,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Bearer ${key}`,
          'idempotency-key': `${run}-pm-${i}`,
        },
      };
    };
    const measure = async (url, requestOf) => {
      await load(url, requestOf, { duration: 1, connections }); // warm-up
      return load(url, requestOf, { duration, connections });
    };
    for (let round = 0; round < rounds; round++) {
      // A fresh stand-in account each round: its in-memory state (and per-call scans) start empty.
      cli(
        dbPath,
        ['merchant', 'update', stripe.merchantId, '--channel', 'stripe', '--stripe-secret-key', '-'],
        env,
        keys[round],
      );
      const pg = await start(
        process.execPath,
        [BIN, '--db', dbPath, 'serve', '--port', '0', '--no-rate-limit', '--no-renew'],
        { PAYGATE_VAULT_KEY: KEY, PAYGATE_LOG_LEVEL: logLevel, ...env },
        /listening on (http:\/\/\S+)/,
      );
      results.sandbox.push(await measure(pg.url, payRequest(sandbox)));
      results.stripe.push(await measure(pg.url, payRequest(stripe)));
      await stop(pg.proc);
      const direct = spawnSync(
        process.execPath,
        [SELF, '--direct-client', standin.url, keys[round], String(duration), String(connections), `${run}-${round}`],
        { encoding: 'utf8' },
      );
      if (direct.status !== 0) throw new Error(`direct client: ${direct.stderr}`);
      results.direct.push(JSON.parse(direct.stdout.trim().split('\n').at(-1)));
      results.standin.push(await measure(standin.url, pmRequest(keys[round])));
    }

    const median = (list) => [...list].sort((a, b) => a.rps - b.rps)[Math.floor(list.length / 2)];
    const [sb, st, direct, alone] = [
      median(results.sandbox),
      median(results.stripe),
      median(results.direct),
      median(results.standin),
    ];
    console.log(
      `## Stripe channel: signed PAY transactions (${connections} connections, ${duration} s each, ${rounds} rounds, paygate log level ${logLevel})\n`,
    );
    console.log('| measurement (median round by req/s) | req/s | p50 ms | p99 ms | 2xx | errors/non-2xx |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const [name, r] of [
      ['paygate serve, sandbox merchant (PAY, sandbox charge, durable)', sb],
      ['paygate serve, Stripe merchant (PAY = 3 calls to the local stand-in, durable)', st],
      ['no paygate: the official client making the same 3 calls to the stand-in', direct],
      ['the stand-in alone: POST /v1/payment_methods (1 call, autocannon)', alone],
    ]) {
      console.log(`| ${name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.ok} | ${r.errors} |`);
    }
    const pct = (a, b) => `${((a / b) * 100).toFixed(0)}%`;
    const perRound = (a, b) => results[a].map((r, i) => pct(r.rps, results[b][i].rps)).join(', ');
    console.log(
      `\nStripe / sandbox: ${pct(st.rps, sb.rps)} of req/s, p50 +${(st.p50 - sb.p50).toFixed(1)} ms, p99 ${(st.p99 / Math.max(sb.p99, 1)).toFixed(2)}×; rounds: ${perRound('stripe', 'sandbox')}`,
    );
    console.log(
      `Stripe through paygate / the same calls without paygate: ${pct(st.rps, direct.rps)} of PAY/s, p50 +${(st.p50 - direct.p50).toFixed(1)} ms; rounds: ${perRound('stripe', 'direct')}\n`,
    );
  } finally {
    await stop(standin.proc);
    rmSync(dir, { recursive: true, force: true });
  }
}
