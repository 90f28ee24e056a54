import type { Sqlite } from './client.js';

/**
 * The `meta` row saying every idempotency fingerprint is keyed (vault/fingerprint.ts). Databases
 * written before it hold plain SHA-256 hex in idempotency_keys.request_hash.
 */
const MARKER = 'request_hash';
const KEYED = 'hmac-sha256';

export interface RekeyOptions {
  /** Plain SHA-256 hex → keyed fingerprint. */
  rekey: (plain: string) => string;
  /** Throws when the vault key is not this database's: rekeying under a wrong key cannot be undone. */
  assertKey: () => void;
}

/**
 * Rekey plain fingerprints in place, once per database: ONE immediate transaction rewrites every
 * row and writes the marker, so a crash leaves either all rows plain or all keyed, and processes
 * opening the database together rekey it once (the second sees the marker inside its own lock).
 * Returns how many rows were rewritten.
 */
export function keyPlainFingerprints(sqlite: Sqlite, opts: RekeyOptions): number {
  const keyed = (): boolean =>
    (sqlite.prepare('SELECT value FROM meta WHERE key = ?').get(MARKER) as { value: string } | undefined)?.value === KEYED;
  if (keyed()) return 0;
  return sqlite
    .transaction((): number => {
      if (keyed()) return 0;
      const rows = sqlite
        .prepare('SELECT merchant_id AS merchantId, scope, request_id AS requestId, request_hash AS hash FROM idempotency_keys')
        .all() as { merchantId: string; scope: string; requestId: string; hash: string }[];
      if (rows.length > 0) opts.assertKey();
      const update = sqlite.prepare(
        'UPDATE idempotency_keys SET request_hash = ? WHERE merchant_id = ? AND scope = ? AND request_id = ?',
      );
      for (const r of rows) update.run(opts.rekey(r.hash), r.merchantId, r.scope, r.requestId);
      sqlite.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(MARKER, KEYED);
      return rows.length;
    })
    .immediate();
}

/** One sealed merchant secret, if any: opening it proves the vault key belongs to this database. */
export function anySealedSecret(sqlite: Sqlite): string | undefined {
  return (sqlite.prepare('SELECT secret_enc AS sealed FROM merchants LIMIT 1').get() as { sealed: string } | undefined)?.sealed;
}
