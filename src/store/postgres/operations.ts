import type { OperationalCounts } from '../store.js';
import { all, get, type Conn } from './query.js';

/** Figures for /metrics, read from the database so every process's work counts. */
export async function operationalCounts(db: Conn): Promise<OperationalCounts> {
  const [transactions, billing, callbacks] = await Promise.all([
    all<OperationalCounts['transactions'][number]>(
      db,
      'SELECT payment_type AS kind, status::text AS status, count(*) AS n FROM transactions GROUP BY payment_type, status',
    ),
    all<OperationalCounts['billing'][number]>(
      db,
      'SELECT billing_type AS kind, status, count(*) AS n FROM billing_records GROUP BY billing_type, status',
    ),
    all<OperationalCounts['callbacks'][number]>(
      db,
      'SELECT status, count(*) AS events, coalesce(sum(attempts), 0)::bigint AS attempts FROM outbox_events GROUP BY status',
    ),
  ]);
  return { transactions, billing, callbacks };
}

/** PENDING callback events; rejects when the database cannot be reached. */
export async function outboxBacklog(db: Conn): Promise<number> {
  return (await get<{ n: number }>(db, "SELECT count(*) AS n FROM outbox_events WHERE status = 'PENDING'"))?.n ?? 0;
}
