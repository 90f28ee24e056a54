import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { join } from 'node:path';
import { request } from 'undici';
import { track } from './children.js';
import { BIN, paygate } from './cli.js';
import { TEST_STRIPE_TIMEOUT_MS, TEST_VAULT_KEY, tempDir } from './env.js';
import { paygateOrigins, record, recorders } from './traffic.js';

export { recordTraffic } from './traffic.js';

/**
 * A real `paygate serve` process on 127.0.0.1 with a temp database, and a client that signs
 * requests by SPEC §4 written here from the text (deliberately not importing src/domain/signature).
 */
export interface Served {
  url: string;
  dbPath: string;
  dir: string;
  proc: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ServeOptions {
  dbPath?: string;
  args?: string[];
  env?: Record<string, string>;
}

export function serveEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PAYGATE_VAULT_KEY: TEST_VAULT_KEY,
    PAYGATE_STRIPE_TIMEOUT_MS: TEST_STRIPE_TIMEOUT_MS,
    NODE_ENV: 'test',
    ...extra,
  };
}

export async function startServe(opts: ServeOptions = {}): Promise<Served> {
  const tmp = opts.dbPath ? undefined : tempDir('paygate-serve-');
  const dbPath = opts.dbPath ?? join(tmp?.dir ?? '.', 'paygate.db');
  // Renewals stay off unless a test asks for its own schedule with --renew-cron.
  const renew = (opts.args ?? []).includes('--renew-cron');
  const args = [BIN, '--db', dbPath, 'serve', '--port', '0', ...(renew ? [] : ['--no-renew']), ...(opts.args ?? [])];
  const proc = track(spawn(process.execPath, args, { env: serveEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // A serve that never came up is ended here: alive, its pipes would keep the test worker from
    // exiting long after the failure was reported.
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`serve did not start within 20 s:\n${out}`));
    }, 20_000);
    const check = (): void => {
      const m = /paygate listening on (https?:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    proc.stdout?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${out}`));
    });
  });
  paygateOrigins.add(new URL(url).origin);
  return {
    url,
    dbPath,
    dir: tmp?.dir ?? '',
    proc,
    output: () => out,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (proc.exitCode === null) proc.kill(signal);
      const code = await exited;
      tmp?.cleanup();
      return code;
    },
  };
}

export interface TestMerchant {
  merchantId: string;
  apiKey: string;
  secret: string;
  signatureVersion: number;
}

export function createMerchant(dbPath: string, signatureVersion: 1 | 2 = 2, name = 'Test Shop'): TestMerchant {
  const r = paygate([
    '--db',
    dbPath,
    '--json',
    'merchant',
    'create',
    '--name',
    name,
    '--signature-version',
    String(signatureVersion),
  ]);
  if (r.status !== 0) throw new Error(`merchant create failed: ${r.stderr}`);
  return r.json() as TestMerchant;
}

// ---- SPEC §4, independently ----

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return JSON.stringify(sorted(value));
}

export function signV1(method: string, path: string, params: Record<string, unknown>, secret: string): string {
  const joined = Object.keys(params)
    .filter((k) => k !== 'sign' && params[k] !== null && params[k] !== undefined && params[k] !== '')
    .sort()
    .map((k) => `${k}=${text(params[k])}`)
    .join('&');
  return createHash('sha256').update(`${method} ${path}\n${joined}&key=${secret}`, 'utf8').digest('hex');
}

export function signV2(
  method: string,
  path: string,
  payload: string,
  secret: string,
  t = Math.floor(Date.now() / 1000),
): string {
  const hex = createHmac('sha256', secret).update(`${t}.${method}.${path}.${payload}`, 'utf8').digest('hex');
  return `t=${t},v2=${hex}`;
}

export interface Answer {
  status: number;
  headers: { get(name: string): string | null };
  body: any;
  text: string;
}

export interface RawInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** undici.request rather than fetch: fetch refuses a GET with a body, which SPEC §3 allows. */
export async function raw(url: string, init: RawInit = {}): Promise<Answer> {
  const res = await request(url, { method: (init.method ?? 'GET') as 'GET', headers: init.headers, body: init.body });
  const t = await res.body.text();
  if (recorders.size > 0) {
    const responseHeaders: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(res.headers)) responseHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
    const requestBody =
      init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : init.body.toString('utf8');
    record({
      method: init.method ?? 'GET',
      url,
      requestBody,
      status: res.statusCode,
      responseHeaders,
      responseBody: t,
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(t);
  } catch {
    body = undefined;
  }
  const headers = res.headers;
  return {
    status: res.statusCode,
    headers: {
      get: (name) => {
        const v = headers[name.toLowerCase()];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      },
    },
    body,
    text: t,
  };
}

/** A signed client for one merchant: POST bodies and GET queries, v1 or v2 by the merchant's version. */
export function client(base: string, m: TestMerchant) {
  return {
    async post(
      path: string,
      body: Record<string, unknown>,
      opts: { sign?: boolean; headers?: Record<string, string> } = {},
    ): Promise<Answer> {
      const params = { merchantId: m.merchantId, ...body };
      let headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
      let payloadObj: Record<string, unknown> = params;
      if (opts.sign !== false && m.signatureVersion === 1)
        payloadObj = { ...params, sign: signV1('POST', path, params, m.secret) };
      const payload = JSON.stringify(payloadObj);
      if (opts.sign !== false && m.signatureVersion === 2)
        headers = { 'x-paygate-signature': signV2('POST', path, payload, m.secret), ...headers };
      return raw(base + path, { method: 'POST', headers, body: payload });
    },
    async get(path: string, query: Record<string, string>, opts: { sign?: boolean } = {}): Promise<Answer> {
      const params: Record<string, string> = { merchantId: m.merchantId, ...query };
      const headers: Record<string, string> = {};
      if (opts.sign !== false && m.signatureVersion === 1) params.sign = signV1('GET', path, params, m.secret);
      const qs = new URLSearchParams(params).toString();
      if (opts.sign !== false && m.signatureVersion === 2)
        headers['x-paygate-signature'] = signV2('GET', path, qs, m.secret);
      return raw(`${base}${path}?${qs}`, { headers });
    },
  };
}
