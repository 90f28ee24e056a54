import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { processTally } from '../channel/call-scope.js';
import type { Ctx } from '../ctx.js';
import { STATUS_NAMES } from '../services/transactions/view.js';
import type { OperationalCounts } from '../services/rows.js';

/**
 * Prometheus metrics of one `serve` (prom-client, text format). Request figures are counted in
 * this process; business figures (transactions, renewals, callbacks, backlog) are read from the
 * database at scrape time, so they include what `paygate renew` processes and other instances
 * did. One registry per server, so several servers in one process (tests) do not mix.
 */
export interface ServerMetrics {
  registry: Registry;
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  rateLimited(route: string): void;
}

/** Scrapes within this long share one read of the counts (the gauges below each ask for them). */
const COUNTS_TTL_MS = 1_000;

export function createMetrics(ctx: Ctx): ServerMetrics {
  const registry = new Registry();
  let read: { at: number; counts: Promise<OperationalCounts> } | undefined;
  // prom-client awaits async collect(): the gauges of one scrape share one read.
  const counts = (): Promise<OperationalCounts> => {
    const now = Date.now();
    if (!read || now - read.at > COUNTS_TTL_MS) read = { at: now, counts: ctx.store.operationalCounts() };
    return read.counts;
  };
  const requests = new Counter({
    name: 'paygate_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'paygate_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route pattern and method',
    labelNames: ['route', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // Counted where the calls are made: this process's Stripe calls, by who made them.
  new Counter({
    name: 'paygate_stripe_calls_total',
    help: 'HTTP calls this process sent to Stripe (re-sent ones included), by caller and whether Stripe answered 429',
    labelNames: ['caller', 'answer'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const callers = [
        ['customer_present', processTally.customerPresent],
        ['background', processTally.background],
      ] as const;
      for (const [caller, t] of callers) {
        this.inc({ caller, answer: 'rate_limited' }, t.rateLimited);
        this.inc({ caller, answer: 'other' }, t.calls - t.rateLimited);
      }
    },
  });
  const refusals = new Counter({
    name: 'paygate_rate_limit_refusals_total',
    help: 'Requests refused by a rate limit (1004), by route pattern',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'paygate_transactions',
    help: 'Transactions in the database, by payment type and status',
    labelNames: ['type', 'status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of (await counts()).transactions) {
        this.set({ type: r.kind, status: STATUS_NAMES[Number(r.status)] ?? r.status }, r.n);
      }
    },
  });
  new Gauge({
    name: 'paygate_charge_attempts',
    help: 'Subscription charge attempts (billing records), by type (INITIAL, RENEW, RETRY) and outcome',
    labelNames: ['type', 'outcome'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of (await counts()).billing) this.set({ type: r.kind, outcome: r.status }, r.n);
    },
  });
  new Gauge({
    name: 'paygate_callback_events',
    help: 'Callback events, by delivery status (PENDING, DELIVERED, DEAD)',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of (await counts()).callbacks) this.set({ status: r.status }, r.events);
    },
  });
  new Gauge({
    name: 'paygate_callback_attempts',
    help: 'Callback delivery attempts made, by the status of their event',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of (await counts()).callbacks) this.set({ status: r.status }, r.attempts);
    },
  });
  new Gauge({
    name: 'paygate_outbox_backlog',
    help: 'Callback events waiting to be delivered (PENDING)',
    registers: [registry],
    async collect() {
      this.set(await ctx.store.outboxBacklog());
    },
  });
  return {
    registry,
    observeRequest(route, method, status, seconds) {
      requests.inc({ route, method, status: String(status) });
      latency.observe({ route, method }, seconds);
    },
    rateLimited(route) {
      refusals.inc({ route });
    },
  };
}
