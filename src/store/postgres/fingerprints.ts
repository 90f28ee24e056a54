import type { RekeyOptions } from '../store.js';
import { all, get, run, type Conn } from './query.js';

const MARKER = 'request_hash';
const KEYED = 'hmac-sha256';
const BATCH = 1000;

/**
 * Rekey plain request fingerprints (databases copied from an older SQLite one), once: inside one
 * transaction holding the table's EXCLUSIVE lock, so processes opening the database together
 * rekey it once (the second finds the marker) and a crash leaves all rows plain or all keyed.
 * PostgreSQL cannot call back into this process from SQL, so rows are rewritten in key order,
 * one batch of values at a time.
 */
export async function keyPlainFingerprints(db: Conn, opts: RekeyOptions): Promise<number> {
  const keyed = async (): Promise<boolean> =>
    (await get<{ value: string }>(db, 'SELECT value FROM meta WHERE key = @key', { key: MARKER }))?.value === KEYED;
  if (await keyed()) return 0;
  await run(db, 'LOCK TABLE idempotency_keys IN EXCLUSIVE MODE');
  if (await keyed()) return 0;
  let changed = 0;
  let after: { m: string; s: string; r: string } | undefined;
  let checked = false;
  for (;;) {
    const rows: { m: string; s: string; r: string; h: string }[] = await all(
      db,
      `SELECT merchant_id AS m, scope AS s, request_id AS r, request_hash AS h FROM idempotency_keys
       WHERE @m::text IS NULL OR (merchant_id COLLATE "C", scope COLLATE "C", request_id COLLATE "C") > (@m::text COLLATE "C", @s::text COLLATE "C", @r::text COLLATE "C")
       ORDER BY merchant_id COLLATE "C", scope COLLATE "C", request_id COLLATE "C" LIMIT @limit`,
      { m: after?.m ?? null, s: after?.s ?? '', r: after?.r ?? '', limit: BATCH },
    );
    if (rows.length === 0) break;
    if (!checked) {
      opts.assertKey((await get<{ sealed: string }>(db, 'SELECT secret_enc AS sealed FROM merchants LIMIT 1'))?.sealed);
      checked = true;
    }
    changed += await run(
      db,
      `UPDATE idempotency_keys k SET request_hash = v.h FROM unnest(@m::text[], @s::text[], @r::text[], @h::text[]) AS v(m, s, r, h)
       WHERE k.merchant_id = v.m AND k.scope = v.s AND k.request_id = v.r`,
      {
        m: rows.map((x) => x.m),
        s: rows.map((x) => x.s),
        r: rows.map((x) => x.r),
        h: rows.map((x) => opts.rekey(x.h)),
      },
    );
    const last = rows.at(-1);
    if (!last) break;
    after = { m: last.m, s: last.s, r: last.r };
  }
  await run(
    db,
    'INSERT INTO meta (key, value) VALUES (@key, @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    {
      key: MARKER,
      value: KEYED,
    },
  );
  return changed;
}
