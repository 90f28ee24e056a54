import type { OperationalCounts } from '../store.js';
import type { Sqlite } from './client.js';

/**
 * Figures for /metrics and /healthz, read from the database rather than counted in memory: renewals
 * and deliveries are also made by `paygate renew` processes that no scrape of `serve` would see.
 */
const cache = new WeakMap<Sqlite, { counts: () => OperationalCounts; backlog: () => number; ping: () => void }>();

function statements(sqlite: Sqlite) {
  let s = cache.get(sqlite);
  if (!s) {
    const tx = sqlite.prepare(
      'SELECT payment_type AS kind, CAST(status AS TEXT) AS status, count(*) AS n FROM transactions GROUP BY payment_type, status',
    );
    const br = sqlite.prepare(
      'SELECT billing_type AS kind, status, count(*) AS n FROM billing_records GROUP BY billing_type, status',
    );
    const cb = sqlite.prepare(
      'SELECT status, count(*) AS events, coalesce(sum(attempts), 0) AS attempts FROM outbox_events GROUP BY status',
    );
    // Reads only the partial index of PENDING events: cheap however large the outbox grows.
    const backlog = sqlite.prepare("SELECT count(*) FROM outbox_events WHERE status = 'PENDING'").pluck();
    const ping = sqlite.prepare('SELECT 1').pluck();
    s = {
      counts: () => ({
        transactions: tx.all() as OperationalCounts['transactions'],
        billing: br.all() as OperationalCounts['billing'],
        callbacks: cb.all() as OperationalCounts['callbacks'],
      }),
      backlog: () => Number(backlog.get()),
      ping: () => void ping.get(),
    };
    cache.set(sqlite, s);
  }
  return s;
}

export function operationalCounts(sqlite: Sqlite): OperationalCounts {
  return statements(sqlite).counts();
}

/** PENDING callback events (due or waiting for a retry). Throws when the database cannot be read. */
export function outboxBacklog(sqlite: Sqlite): number {
  const s = statements(sqlite);
  s.ping();
  return s.backlog();
}
