import type pg from 'pg';

type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/**
 * The same one-row-per-key sliding window as rate-limit.ts (the upsert locks the key's row, so
 * every process on the database counts exactly), with a window of any length and the answer in
 * milliseconds: a Stripe account's calls per second need both. Refused takes are not recorded.
 * Rows share rate_limit_windows and its sweep (their windows are shorter than the sweep's).
 */
const TAKE_SQL = `
INSERT INTO rate_limit_windows AS w (key, hits, last_allowed, last_hit_at)
VALUES ($1, ARRAY[$2::bigint], true, $2::bigint)
ON CONFLICT (key) DO UPDATE SET (hits, last_allowed, last_hit_at) = (
  SELECT CASE WHEN cardinality(k.kept) < $3::int THEN k.kept || $2::bigint ELSE k.kept END,
         cardinality(k.kept) < $3::int,
         CASE WHEN cardinality(k.kept) < $3::int THEN greatest(w.last_hit_at, $2::bigint) ELSE w.last_hit_at END
  FROM (SELECT ARRAY(SELECT h FROM unnest(w.hits) AS h WHERE h > $2::bigint - $4::bigint ORDER BY h) AS kept) AS k
)
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
