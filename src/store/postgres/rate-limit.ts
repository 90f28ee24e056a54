import type pg from 'pg';

/** The window of the service's rate limits: sliding 60 seconds. */
export const RATE_WINDOW_MS = 60_000;

export type RateHit = { ok: true } | { ok: false; retryAfter: number };

export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/**
 * One statement counts and records a hit. The upsert locks the key's row, and PostgreSQL
 * evaluates ON CONFLICT DO UPDATE against the newest committed version of that row even under
 * READ COMMITTED, so concurrent hits from any number of instances queue on the row and each
 * sees the hits of the ones before it: a budget of N lets exactly N through per window.
 * Refused hits are not recorded (a client that backs off gets its budget back on time).
 */
export const WINDOW_UPSERT = `
INSERT INTO rate_limit_windows AS w (key, hits, last_allowed, last_hit_at)
VALUES ($1, ARRAY[$2::bigint], true, $2::bigint)
ON CONFLICT (key) DO UPDATE SET (hits, last_allowed, last_hit_at) = (
  SELECT CASE WHEN cardinality(k.kept) < $3::int THEN k.kept || $2::bigint ELSE k.kept END,
         cardinality(k.kept) < $3::int,
         CASE WHEN cardinality(k.kept) < $3::int THEN greatest(w.last_hit_at, $2::bigint) ELSE w.last_hit_at END
  FROM (SELECT ARRAY(SELECT h FROM unnest(w.hits) AS h WHERE h > $2::bigint - $4::bigint ORDER BY h) AS kept) AS k
)`;

const HIT_SQL = `${WINDOW_UPSERT}
RETURNING last_allowed, hits[1] AS oldest`;

/**
 * Counts a hit on `key` at `now` (epoch ms, the caller's clock) against `limit` hits per window,
 * in its own statement (autocommit): the hit counts even if the request is refused later.
 */
export async function hitRateLimit(
  db: Queryable,
  key: string,
  limit: number,
  now: number,
  windowMs: number = RATE_WINDOW_MS,
): Promise<RateHit> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`rate limit must be a whole number ≥ 1, got ${limit}`);
  const r = await db.query<{ last_allowed: boolean; oldest: number | string | null }>(HIT_SQL, [
    key,
    now,
    limit,
    windowMs,
  ]);
  const row = r.rows[0];
  if (row?.last_allowed) return { ok: true };
  const oldest = Number(row?.oldest ?? now);
  return { ok: false, retryAfter: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)) };
}

/**
 * Deletes keys with no hit left in the window, so idle clients cost no rows. Safe beside
 * concurrent hits: a row hit meanwhile no longer matches when the DELETE gets to it.
 */
export async function sweepRateLimits(db: Queryable, now: number, windowMs: number = RATE_WINDOW_MS): Promise<number> {
  const r = await db.query('DELETE FROM rate_limit_windows WHERE last_hit_at <= $1::bigint', [now - windowMs]);
  return r.rowCount ?? 0;
}
