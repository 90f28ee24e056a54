import type { RekeyOptions } from '../store.js';
import type { Sqlite } from './client.js';

/**
 * The `meta` row saying every idempotency fingerprint is keyed (vault/fingerprint.ts). Databases
 * written before it hold plain SHA-256 hex in idempotency_keys.request_hash.
 */
const MARKER = 'request_hash';
const KEYED = 'hmac-sha256';

/**
 * Rekey plain fingerprints in place, once per database: ONE immediate transaction rewrites every
 * row and writes the marker, so a crash leaves either all rows plain or all keyed, and processes
 * opening the database together rekey it once (the second sees the marker inside its own lock).
 * Returns how many rows were rewritten.
 */
export function keyPlainFingerprints(sqlite: Sqlite, opts: RekeyOptions): number {
  const keyed = (): boolean =>
    (sqlite.prepare('SELECT value FROM meta WHERE key = ?').get(MARKER) as { value: string } | undefined)?.value ===
    KEYED;
  if (keyed()) return 0;
  const rows = rekey(sqlite, keyed, opts);
  // A keyed fingerprint has the plain one's length, so each row is overwritten in place; what would
  // still hold the plain hashes are the old page images in the database file until a checkpoint
  // copies the new pages over them. Do that now and empty the WAL (best effort: a reader holding
  // an old snapshot delays it to a later checkpoint).
  if (rows > 0) sqlite.pragma('wal_checkpoint(TRUNCATE)');
  return rows;
}

function rekey(sqlite: Sqlite, keyed: () => boolean, opts: RekeyOptions): number {
  // One UPDATE through a function registered on this connection: no row is held in memory, however
  // many years of requestIds the table keeps.
  sqlite.function('paygate_rekey_fingerprint', { deterministic: true }, (plain: unknown) => opts.rekey(String(plain)));
  return sqlite
    .transaction((): number => {
      if (keyed()) return 0;
      if (sqlite.prepare('SELECT 1 FROM idempotency_keys LIMIT 1').get()) opts.assertKey(anySealedSecret(sqlite));
      const { changes } = sqlite
        .prepare('UPDATE idempotency_keys SET request_hash = paygate_rekey_fingerprint(request_hash)')
        .run();
      sqlite
        .prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
        .run(MARKER, KEYED);
      return changes;
    })
    .immediate();
}

/** One sealed merchant secret, if any: opening it proves the vault key belongs to this database. */
function anySealedSecret(sqlite: Sqlite): string | undefined {
  return (sqlite.prepare('SELECT secret_enc AS sealed FROM merchants LIMIT 1').get() as { sealed: string } | undefined)
    ?.sealed;
}
