import { type Queryable, WINDOW_UPSERT } from './rate-limit.js';

/**
 * The same one-row-per-key sliding window as rate-limit.ts (the upsert locks the key's row, so
 * every process on the database counts exactly), with a window of any length and the answer in
 * milliseconds: a Stripe account's calls per second need both. Refused takes are not recorded.
 * Rows share rate_limit_windows and its sweep (their windows are shorter than the sweep's).
 */
const TAKE_SQL = `${WINDOW_UPSERT}
RETURNING last_allowed, hits`;

/**
 * Takes one slot of `limit` per `windowMs` on `key` at `now` (epoch ms): 0 when taken, else the
 * milliseconds until enough of the window's slots have expired for this limit.
 */
export async function takeWindowSlot(
  db: Queryable,
  key: string,
  limit: number,
  now: number,
  windowMs: number,
): Promise<number> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a whole number ≥ 1, got ${limit}`);
  const r = await db.query<{ last_allowed: boolean; hits: Array<number | string> }>(TAKE_SQL, [
    key,
    now,
    limit,
    windowMs,
  ]);
  const row = r.rows[0];
  if (!row || row.last_allowed) return 0;
  const hits = row.hits.map(Number);
  // Enough of the oldest must leave the window for `limit` to admit one more.
  const freeing = hits[hits.length - limit] ?? now;
  return Math.max(1, freeing + windowMs - now);
}
