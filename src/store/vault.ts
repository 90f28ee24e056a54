import type { Sqlite } from './client.js';

/**
 * What the vault needs from the database: its key check value and rotation state in `meta`, and
 * the sealed columns a key rotation re-encrypts. Every sealed value of the schema is listed in
 * SEALED_COLUMNS: a new encrypted column must be added here, or a rotation would strand it.
 */
export const META = {
  /** Key check value of the vault key this database is sealed under. */
  keyCheck: 'vault_kcv',
  /** Key check value of the key a rotation under way is moving to. */
  rotatingTo: 'vault_rotating_to',
  /** Derived keys kept across rotations, sealed under the current key (JSON purpose → base64). */
  pinned: 'vault_pinned',
  /** The same, sealed under the key a rotation under way is moving to. */
  pinnedNext: 'vault_pinned_next',
} as const;

export function getMeta(sqlite: Sqlite, key: string): string | undefined {
  return (sqlite.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
}

export function setMeta(sqlite: Sqlite, key: string, value: string): void {
  sqlite.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
}

/** Insert unless present; returns the value that is there afterwards (first writer wins). */
export function claimMeta(sqlite: Sqlite, key: string, value: string): string {
  sqlite.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING').run(key, value);
  return getMeta(sqlite, key) ?? value;
}

export function deleteMeta(sqlite: Sqlite, key: string): void {
  sqlite.prepare('DELETE FROM meta WHERE key = ?').run(key);
}

/** Whether the database holds anything a vault key sealed (or will need one to read). */
export function holdsSealedData(sqlite: Sqlite): boolean {
  return (
    sqlite.prepare('SELECT 1 FROM merchants LIMIT 1').get() !== undefined ||
    sqlite.prepare('SELECT 1 FROM cards LIMIT 1').get() !== undefined ||
    getMeta(sqlite, META.keyCheck) !== undefined
  );
}

/** One sealed value to test a key against, if the database has any. */
export function anySealedValue(sqlite: Sqlite): string | undefined {
  const m = sqlite.prepare('SELECT secret_enc AS v FROM merchants LIMIT 1').get() as { v: string } | undefined;
  if (m) return m.v;
  return (sqlite.prepare('SELECT pan_enc AS v FROM cards LIMIT 1').get() as { v: string } | undefined)?.v;
}

export interface SealedColumn {
  table: string;
  key: string;
  column: string;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'cards', key: 'id', column: 'pan_enc' },
  { table: 'merchants', key: 'id', column: 'secret_enc' },
  { table: 'merchants', key: 'id', column: 'prev_secret_enc' },
];

export interface SealedRow {
  id: string;
  sealed: string;
}

/** The next batch of a column's sealed values after `afterId`, in key order (a rotation walks them). */
export function sealedBatch(sqlite: Sqlite, col: SealedColumn, afterId: string, limit: number): SealedRow[] {
  return sqlite
    .prepare(`SELECT ${col.key} AS id, ${col.column} AS sealed FROM ${col.table} WHERE ${col.key} > ? AND ${col.column} IS NOT NULL ORDER BY ${col.key} LIMIT ?`)
    .all(afterId, limit) as SealedRow[];
}

export function updateSealed(sqlite: Sqlite, col: SealedColumn, id: string, sealed: string): void {
  sqlite.prepare(`UPDATE ${col.table} SET ${col.column} = ? WHERE ${col.key} = ?`).run(sealed, id);
}

export function countSealed(sqlite: Sqlite): number {
  return SEALED_COLUMNS.reduce(
    (n, c) => n + Number(sqlite.prepare(`SELECT count(*) FROM ${c.table} WHERE ${c.column} IS NOT NULL`).pluck().get()),
    0,
  );
}
