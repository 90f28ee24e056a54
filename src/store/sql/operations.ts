import type { OperationalCounts } from '../store.js';
import type { Db } from './db.js';

/**
 * Figures for /metrics and /healthz, read from the database rather than counted in memory:
 * renewals and deliveries are also made by `paygate renew` processes (and other instances) that
 * no scrape of one `serve` would see.
 */
export async function operationalCounts(db: Db): Promise<OperationalCounts> {
  const [transactions, billing, callbacks] = await Promise.all([
    db.all<OperationalCounts['transactions'][number]>(
      'SELECT payment_type AS kind, CAST(status AS TEXT) AS status, count(*) AS n FROM transactions GROUP BY payment_type, status',
    ),
    db.all<OperationalCounts['billing'][number]>(
      'SELECT billing_type AS kind, status, count(*) AS n FROM billing_records GROUP BY billing_type, status',
    ),
    db.all<OperationalCounts['callbacks'][number]>(
      'SELECT status, count(*) AS events, CAST(coalesce(sum(attempts), 0) AS BIGINT) AS attempts FROM outbox_events GROUP BY status',
    ),
  ]);
  return { transactions, billing, callbacks };
}

/** PENDING callback events; reads only their partial index. Rejects when the database cannot be read. */
export async function outboxBacklog(db: Db): Promise<number> {
  return (await db.get<{ n: number }>("SELECT count(*) AS n FROM outbox_events WHERE status = 'PENDING'"))?.n ?? 0;
}
