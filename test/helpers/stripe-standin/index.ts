/**
 * startStripeStandin(): a local Stripe for tests on 127.0.0.1, for the official `stripe` client
 * (`host`, `port`, `protocol: 'http'`). HTTP, authentication, faults, idempotency and webhook
 * dispatch live here; the Stripe behaviour itself is in engine.ts, the objects in render.ts.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as engine from './engine.js';
import {
  API_ERROR,
  authError,
  idempotencyMismatch,
  permissionError,
  RATE_LIMIT_ERROR,
  StandinError,
} from './errors.js';
import { Faults, type Fault } from './faults.js';
import type { LoggedRequest, StandinAccount, StripeStandin } from './types.js';
import { fixture, type StripeJson } from './fixtures.js';
import { parseForm, type FormObject } from './form.js';
import { IdempotencyStore } from './idempotency.js';
import { challengeOf, threeDsRequest } from './page.js';
import { AccountRateLimit, LIVE_MODE_LIMIT, RATE_LIMITED_HEADERS, TEST_MODE_LIMIT } from './rate-limit.js';
import { newAccount, stripeId, type AccountState } from './state.js';
import { buildEvent, deliver, type Delivery } from './webhooks.js';

export type { Fault, FaultMatch } from './faults.js';
export type { LoggedRequest, StandinAccount, StripeStandin } from './types.js';
export type { Delivery } from './webhooks.js';
export type { SecondCount } from './rate-limit.js';
export { LIVE_MODE_LIMIT, TEST_MODE_LIMIT } from './rate-limit.js';
export { signatureHeader } from './webhooks.js';

interface Answer {
  status: number;
  body: StripeJson;
}

function maskParams(params: FormObject): FormObject {
  const copy = structuredClone(params);
  const card = copy.card;
  if (card && typeof card === 'object' && !Array.isArray(card)) {
    const n = card.number;
    if (typeof n === 'string') card.number = `${n.slice(0, 6)}${'*'.repeat(Math.max(0, n.length - 10))}${n.slice(-4)}`;
    if (typeof card.cvc === 'string') card.cvc = '***';
  }
  return copy;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export interface StandinOptions {
  now?: () => number;
  /** Operations per second each account takes before answering 429 (default: test mode's 25; null: none). */
  rateLimit?: number | null;
}

export async function startStripeStandin(opts: StandinOptions = {}): Promise<StripeStandin> {
  const base = opts.now ?? Date.now;
  let offset = 0;
  const now = () => base() + offset;
  const accounts: AccountState[] = [];
  const secrets = new Map<string, string>();
  const limits = new Map<string, AccountRateLimit>();
  const limitOf = (acct: AccountState): AccountRateLimit => {
    let l = limits.get(acct.id);
    if (!l) {
      l = new AccountRateLimit(opts.rateLimit === undefined ? TEST_MODE_LIMIT : opts.rateLimit);
      limits.set(acct.id, l);
    }
    return l;
  };
  const idem = new IdempotencyStore();
  const faults = new Faults();
  const requests: LoggedRequest[] = [];
  const events: StripeJson[] = [];
  const eventAccount = new Map<string, AccountState>();
  const deliveries: Delivery[] = [];
  const inFlight = new Set<Promise<Delivery>>();
  const held = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  let baseUrl = '';

  const accountOf = (acct: AccountState): StandinAccount => ({
    id: acct.id,
    get secretKey() {
      return acct.secretKey;
    },
    webhookSecret: secrets.get(acct.id) ?? '',
    setWebhookUrl: (url) => {
      acct.webhook = url ? { url, secret: secrets.get(acct.id) ?? '' } : null;
    },
    setRefundMode: (mode) => {
      acct.refundMode = mode;
    },
    setRawCardData: (enabled) => {
      acct.rawCardData = enabled;
    },
    revokeKey: (key = acct.secretKey) => {
      acct.revokedKeys.add(key);
    },
    rollKey: () => {
      // As the dashboard's "Roll key": the old key answers 401 "Expired", a new one works.
      acct.revokedKeys.add(acct.secretKey);
      acct.secretKey = stripeId('sk_test', 32);
      return acct.secretKey;
    },
    createRestrictedKey: (without = []) => {
      const key = stripeId('rk_test', 32);
      acct.restrictedKeys.set(key, new Set(without));
      return key;
    },
    setRateLimit: (perSecond) => {
      limitOf(acct).limit = perSecond;
    },
    traffic: () => ({ perSecond: limitOf(acct).perSecond(), ...limitOf(acct).totals() }),
    resetTraffic: () => limitOf(acct).reset(),
    state: acct,
  });

  const createAccount = (
    o: { webhookUrl?: string; rateLimit?: number | null; live?: boolean } = {},
  ): StandinAccount => {
    const acct = newAccount();
    // A live-mode account: its key says so (paygate's default budget depends on it), and Stripe's
    // live limit applies unless one is given.
    if (o.live) acct.secretKey = stripeId('sk_live', 32);
    secrets.set(acct.id, `whsec_${randomBytes(24).toString('base64url')}`);
    accounts.push(acct);
    const a = accountOf(acct);
    if (o.webhookUrl) a.setWebhookUrl(o.webhookUrl);
    if (o.rateLimit !== undefined) a.setRateLimit(o.rateLimit);
    else if (o.live) a.setRateLimit(LIVE_MODE_LIMIT);
    return a;
  };

  const send = (acct: AccountState, event: StripeJson): Promise<Delivery> | null => {
    if (!acct.webhook) return null;
    const p = deliver(acct.webhook.url, acct.webhook.secret, event, now()).then((d) => {
      deliveries.push(d);
      inFlight.delete(p);
      return d;
    });
    inFlight.add(p);
    return p;
  };

  const ctxFor = (acct: AccountState, sink: engine.Emitted[], processing = false): engine.EngineCtx => ({
    acct,
    now: now(),
    baseUrl,
    processing,
    emit: (e) => sink.push(e),
  });

  const publish = (
    acct: AccountState,
    emitted: engine.Emitted[],
    meta: { requestId: string | null; idempotencyKey: string | null; apiVersion: string | null },
  ) =>
    emitted.map((e) => {
      const event = buildEvent({ ...e, createdMs: now(), ...meta });
      events.push(event);
      eventAccount.set(String(event.id), acct);
      return event;
    });

  /** Out-of-band changes (3DS page, settlements): their events go out at once. */
  const outOfBand = (acct: AccountState, change: (ctx: engine.EngineCtx) => void) => {
    const sink: engine.Emitted[] = [];
    change(ctxFor(acct, sink));
    for (const e of publish(acct, sink, { requestId: null, idempotencyKey: null, apiVersion: null })) send(acct, e);
  };

  function route(ctx: engine.EngineCtx, method: string, path: string, params: FormObject): Answer {
    const seg = path.split('/').filter(Boolean);
    const [v1, resource, id, action] = seg;
    if (v1 === 'v1') {
      if (method === 'GET' && resource === 'balance' && seg.length === 2) {
        return { status: 200, body: fixture('balance') };
      }
      if (resource === 'payment_methods') {
        if (method === 'POST' && seg.length === 2) return engine.createPaymentMethod(ctx, params);
        if (method === 'GET' && id && seg.length === 3) return engine.retrievePaymentMethod(ctx, id);
        if (method === 'POST' && id && action === 'attach' && seg.length === 4)
          return engine.attachPaymentMethod(ctx, id, params);
      }
      if (resource === 'customers') {
        if (method === 'POST' && seg.length === 2) return engine.createCustomer(ctx, params);
        if (method === 'GET' && id && seg.length === 3) return engine.retrieveCustomer(ctx, id);
      }
      if (resource === 'payment_intents') {
        if (method === 'POST' && seg.length === 2) return engine.createIntent(ctx, params);
        if (method === 'GET' && seg.length === 2) return engine.listIntents(ctx, params);
        if (method === 'GET' && id && seg.length === 3) return engine.retrieveIntent(ctx, id);
        if (method === 'POST' && id && action === 'confirm' && seg.length === 4)
          return engine.confirmIntent(ctx, id, params);
        if (method === 'POST' && id && action === 'cancel' && seg.length === 4)
          return engine.cancelIntent(ctx, id, params);
      }
      if (resource === 'setup_intents') {
        const answer = engine.routeSetupIntents(ctx, method, seg, params);
        if (answer) return answer;
      }
      if (resource === 'refunds') {
        if (method === 'POST' && seg.length === 2) return engine.createRefund(ctx, params);
        if (method === 'GET' && seg.length === 2) return engine.listRefunds(ctx, params);
        if (method === 'GET' && id && seg.length === 3) return engine.retrieveRefund(ctx, id);
      }
    }
    throw new StandinError(404, {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    });
  }

  const write = (res: ServerResponse, status: number, body: string, headers: Record<string, string>) => {
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };

  async function api(req: IncomingMessage, res: ServerResponse, path: string, raw: string): Promise<void> {
    const method = req.method ?? 'GET';
    const params = method === 'POST' ? parseForm(raw) : parseForm(new URL(req.url ?? '/', 'http://x').search.slice(1));
    const key = method === 'POST' ? ((req.headers['idempotency-key'] as string | undefined) ?? null) : null;
    const apiVersion = (req.headers['stripe-version'] as string | undefined) ?? null;
    const requestId = stripeId('req', 14);
    const log: LoggedRequest = {
      id: requestId,
      method,
      path,
      params: maskParams(params),
      idempotencyKey: key,
      accountId: null,
      status: null,
      replayed: false,
      faults: [],
      rateLimited: false,
      at: now(),
    };
    requests.push(log);
    const headers: Record<string, string> = { 'request-id': requestId };
    if (apiVersion) headers['stripe-version'] = apiVersion;
    if (key) headers['idempotency-key'] = key;
    const answer = (status: number, body: StripeJson | string, extra: Record<string, string> = {}) => {
      log.status = status;
      write(res, status, typeof body === 'string' ? body : JSON.stringify(body, null, 2), { ...headers, ...extra });
    };

    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;
    const acct = bearer
      ? accounts.find((a) => a.secretKey === bearer || a.restrictedKeys.has(bearer) || a.revokedKeys.has(bearer))
      : undefined;
    if (!bearer || !acct || acct.revokedKeys.has(bearer)) {
      const e = authError(bearer, acct !== undefined);
      return answer(e.status, e.body(), { 'www-authenticate': 'Bearer realm="Stripe"' });
    }
    log.accountId = acct.id;
    const resource = path.split('/')[2] ?? '';
    if (acct.restrictedKeys.get(bearer)?.has(resource)) {
      const e = permissionError(bearer, acct.id, resource, method === 'GET' ? 'read' : 'write');
      return answer(e.status, e.body());
    }

    // Stripe's limiter runs before anything else of the request: nothing done, nothing stored.
    if (!limitOf(acct).admit()) {
      log.rateLimited = true;
      return answer(429, { error: RATE_LIMIT_ERROR }, RATE_LIMITED_HEADERS);
    }
    const hit = faults.take({ method, path, idempotencyKey: key });
    log.faults = hit.map((f) => f.kind);
    const has = (k: Fault['kind']) => hit.find((f) => f.kind === k);
    const limited = has('rate_limit') as Extract<Fault, { kind: 'rate_limit' }> | undefined;
    if (limited) {
      return answer(
        429,
        { error: RATE_LIMIT_ERROR },
        {
          ...RATE_LIMITED_HEADERS,
          ...(limited.retryAfter !== undefined ? { 'retry-after': String(limited.retryAfter) } : {}),
          ...(limited.shouldRetry !== undefined ? { 'stripe-should-retry': String(limited.shouldRetry) } : {}),
        },
      );
    }
    const serverError = has('server_error') as Extract<Fault, { kind: 'server_error' }> | undefined;
    if (serverError && !serverError.executed) return answer(500, { error: API_ERROR });

    const before = has('before') as Extract<Fault, { kind: 'before' }> | undefined;
    if (before) await before.run();

    const prior = key ? idem.lookup(acct.id, key, method, path, params, now()) : ({ kind: 'new' } as const);
    if (prior.kind === 'conflict') {
      const e = idempotencyMismatch(key ?? '');
      return answer(e.status, e.body());
    }
    if (prior.kind === 'replay') {
      log.replayed = true;
      return answer(prior.record.status, prior.record.body, {
        'idempotent-replayed': 'true',
        'original-request': prior.record.requestId,
      });
    }

    const emitted: engine.Emitted[] = [];
    let result: Answer;
    try {
      result = route(ctxFor(acct, emitted, has('processing') !== undefined), method, path, params);
    } catch (err) {
      if (!(err instanceof StandinError)) throw err;
      result = { status: err.status, body: err.body() };
    }
    // Stripe stores the result of a request that ran (success or card error); one that failed
    // validation before running stores nothing and may be retried with the same key.
    const ran = result.status === 200 || result.status === 402;
    if (serverError && ran) result = { status: 500, body: { error: API_ERROR } };
    if (key && ran) {
      idem.save(acct.id, key, {
        method,
        path,
        params,
        status: result.status,
        body: JSON.stringify(result.body, null, 2),
        requestId,
        createdAt: now(),
      });
    }

    const published = publish(acct, emitted, { requestId, idempotencyKey: key, apiVersion });
    const copies = has('webhook_twice') ? 2 : 1;
    const dispatch = () => Promise.all(published.flatMap((e) => Array.from({ length: copies }, () => send(acct, e))));
    if (has('webhook_first')) await dispatch();

    const timeout = has('timeout') as Extract<Fault, { kind: 'timeout' }> | undefined;
    if (timeout) {
      held.add(res);
      res.on('close', () => held.delete(res));
      if (timeout.afterMs !== undefined) {
        const t = setTimeout(() => {
          timers.delete(t);
          answer(result.status, result.body);
        }, timeout.afterMs);
        timers.add(t);
      }
    } else {
      answer(result.status, result.body);
    }
    if (!has('webhook_first')) setImmediate(() => void dispatch());
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname.startsWith('/3ds/')) {
        return threeDsRequest(req, res, url, raw, {
          find: (id) => challengeOf(accounts, id),
          complete: (acct, id, passed) =>
            outOfBand(acct, (ctx) =>
              acct.setupIntents.has(id)
                ? engine.completeSetupAuthentication(ctx, id, passed)
                : engine.completeAuthentication(ctx, id, passed),
            ),
        });
      }
      return api(req, res, url.pathname, raw);
    })().catch((err: unknown) => {
      // A bug in the stand-in itself: answer like Stripe's 500 so the test sees it.
      write(res, 500, JSON.stringify({ error: { ...API_ERROR, message: `stand-in bug: ${String(err)}` } }), {});
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;
  const account = createAccount();

  const settle = (id: string, find: (a: AccountState) => boolean, change: (ctx: engine.EngineCtx) => void) => {
    const acct = accounts.find(find);
    if (!acct) throw new Error(`stripe-standin: no ${id}`);
    outOfBand(acct, change);
  };

  return {
    url: baseUrl,
    host: '127.0.0.1',
    port,
    account,
    createAccount,
    faults,
    requests,
    events,
    deliveries,
    now,
    advanceClock: (ms) => {
      offset += ms;
    },
    settleIntent: (id, outcome) =>
      settle(
        id,
        (a) => a.intents.has(id),
        (ctx) => engine.settleIntent(ctx, id, outcome),
      ),
    settleRefund: (id, outcome) =>
      settle(
        id,
        (a) => a.refunds.has(id),
        (ctx) => engine.settleRefund(ctx, id, outcome),
      ),
    redeliver: async (eventId) => {
      const event = events.find((e) => e.id === eventId);
      const acct = eventAccount.get(eventId);
      if (!event || !acct) throw new Error(`stripe-standin: no event ${eventId}`);
      const p = send(acct, event);
      if (!p) throw new Error('stripe-standin: the account has no webhook endpoint');
      return p;
    },
    webhooksIdle: async () => {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      for (const r of held) r.destroy();
      await Promise.all([...inFlight]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
