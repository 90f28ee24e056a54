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

/**
 * Takes one of `limit` places for calls under way on `key`, held until `until` (epoch ms) unless
 * left before: the same upsert, whose entries are lease ends and whose window is the lease, so
 * the places kept are those whose lease has not ended at `now`. Two calls with one lease end hold
 * two equal entries; leaving removes one of them.
 */
export async function enterRunning(
  db: Queryable,
  key: string,
  limit: number,
  now: number,
  until: number,
): Promise<boolean> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a whole number ≥ 1, got ${limit}`);
  if (!(until > now)) throw new RangeError('a place must be held until a later time');
  const r = await db.query<{ last_allowed: boolean }>(TAKE_SQL, [key, until, limit, until - now]);
  return r.rows[0]?.last_allowed ?? false;
}

const LEAVE_SQL = `UPDATE rate_limit_windows
SET hits = hits[:array_position(hits, $2::bigint) - 1] || hits[array_position(hits, $2::bigint) + 1:]
WHERE key = $1 AND array_position(hits, $2::bigint) IS NOT NULL`;

/** Gives back one place held until `until` (nothing when it already ended and was dropped). */
export async function leaveRunning(db: Queryable, key: string, until: number): Promise<void> {
  await db.query(LEAVE_SQL, [key, until]);
}
