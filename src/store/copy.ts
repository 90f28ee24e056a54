import { CopyInterrupted, invalidParam } from '../domain/errors.js';
import { checkCopyText, insertOrName } from './copy-check.js';
import { isPostgresUrl, redactUrl } from './postgres/url.js';
import type { TableSpec } from './tables/define.js';
import { sqlName } from './tables/define.js';
import { TABLES } from './tables/index.js';
import type { CopyProgress, CopySummary } from './store.js';

/**
 * `paygate db copy`: the whole database into an empty one of either engine. Engine-neutral
 * orchestration over two small engine modules (`sqlite/copy.ts`, `postgres/copy.ts`): the source
 * is read from one snapshot, table by table in foreign-key order and key order, in batches; each
 * batch is inserted in one transaction; the copy ends by comparing row counts per table.
 *
 * Values cross engines in one neutral form: text as strings, integers as JS numbers (every
 * value paygate stores is below 2^53; a larger one stops the copy instead of being rounded),
 * booleans as booleans, NULL as null. Nothing is decrypted or re-encrypted: sealed columns and
 * the vault key check value in `meta` travel as the text they are, so the copy opens with the
 * same vault key.
 */

export type CopyValue = string | number | boolean | null;
export type CopyRow = CopyValue[];

export interface CopyColumn {
  name: string;
  type: 'text' | 'integer' | 'boolean';
  /** The database numbers it (serial): after a copy, its numbering must go on past the copied rows. */
  numbered?: true;
}

export interface CopyTable {
  name: string;
  columns: CopyColumn[];
  /** The primary key's columns: batches are read in this order, continuing after the last key. */
  key: string[];
}

/** A database read for copying: one consistent snapshot from `open` to `end`. */
export interface CopySource {
  count(table: CopyTable): Promise<number>;
  /** Up to `limit` rows in key order after the key `after` (null: from the start), values in `table.columns` order. */
  readBatch(table: CopyTable, after: CopyValue[] | null, limit: number): Promise<CopyRow[]>;
  end(): Promise<void>;
}

/** An empty database being filled. */
export interface CopyTarget {
  /** Tables of `tables` that already hold rows, with their counts. */
  occupied(tables: readonly CopyTable[]): Promise<Array<{ table: string; rows: number }>>;
  /** One transaction: all of the batch or nothing. */
  insertBatch(table: CopyTable, rows: CopyRow[]): Promise<void>;
  count(table: CopyTable): Promise<number>;
  /** After the last batch: engine bookkeeping (PostgreSQL's identity sequence of outbox_events). */
  finish(): Promise<void>;
  /**
   * A failed or interrupted copy: remove what was written (the target was empty), the file it
   * created ('removed'), or the tables it created in a database that had none of paygate's ('dropped').
   */
  discard(): Promise<'emptied' | 'removed' | 'dropped'>;
  close(): Promise<void>;
}

/**
 * Every table, in tables/'s order: parents before children (merchants before what belongs to
 * them, cards before the subscriptions that point at them, transactions before their refunds
 * and tracking entries), `meta` (time zone, vault key check value, rotation state) as it is.
 * Not the PostgreSQL-only rate-limit windows: minute-long counters of one database.
 */
function describeTable(spec: TableSpec): CopyTable {
  const entries = Object.entries(spec.columns);
  const columns = entries.map(
    ([key, c]): CopyColumn => ({
      name: sqlName(key),
      type: c.spec.kind === 'boolean' ? 'boolean' : c.spec.kind === 'text' ? 'text' : 'integer',
      ...(c.spec.kind === 'serial' ? { numbered: true as const } : {}),
    }),
  );
  const key = spec.primaryKey?.map(sqlName) ?? entries.filter(([, c]) => c.spec.primaryKey).map(([k]) => sqlName(k));
  if (key.length === 0) throw new Error(`table ${spec.name} has no primary key to copy it in order`);
  return { name: spec.name, columns, key };
}

export const COPY_TABLES: readonly CopyTable[] = TABLES.filter((t) => !t.postgresOnly).map(describeTable);

/** Rows per batch: one transaction each, and under PostgreSQL's 65,535 parameters per statement at 36 columns. */
export const COPY_BATCH = 500;

/** The integer a driver gave (number or bigint) as a JS number, refusing one it cannot hold exactly. */
export function safeInteger(v: number | bigint, where: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || (typeof v === 'bigint' && BigInt(n) !== v)) {
    throw new Error(`${where}: the integer ${String(v)} is too large to copy exactly`);
  }
  return n;
}

/**
 * Every table paygate keeps in its schema on either engine, and drizzle's bookkeeping (SQLite
 * keeps it beside them; PostgreSQL in its own "drizzle" schema). Anything else in a target is
 * another application's, which `db copy` never fills (SPEC §1: an empty database).
 */
export const OWN_TABLE_NAMES: ReadonlySet<string> = new Set([...TABLES.map((t) => t.name), '__drizzle_migrations']);

/** What a target held before anything was written to it. */
export interface TargetContents {
  /** paygate's tables that hold rows, with their counts. */
  occupied: Array<{ table: string; rows: number }>;
  /** Tables and views that are not paygate's, whatever they hold. */
  foreign: string[];
}

/** At most this many foreign tables are named: the message stays one readable line. */
const FOREIGN_NAMED = 10;

/** A table name as one printable word (names may hold any character, a newline included). */
const tableWord = (name: string): string => (/^[\w$]+$/.test(name) ? name : JSON.stringify(name));

/** Table names for a one-line message: the first few, and how many more. */
export function tableList(names: readonly string[]): string {
  const more = names.length > FOREIGN_NAMED ? ` and ${names.length - FOREIGN_NAMED} more` : '';
  return `${names.slice(0, FOREIGN_NAMED).map(tableWord).join(', ')}${more}`;
}

/** The refusal of a target that holds rows, or tables of another application (checked before anything is written to it). */
export function notEmpty(
  what: string,
  occupied: Array<{ table: string; rows: number }>,
  foreign: string[] = [],
): Error {
  const parts = occupied.length > 0 ? [occupied.map((o) => `${o.table}: ${o.rows}`).join(', ')] : [];
  if (foreign.length > 0) parts.push(`tables that are not paygate's: ${tableList(foreign)}`);
  return invalidParam('to', `${what} is not empty (${parts.join('; ')}); db copy only fills an empty database`);
}

/** Refuse a target that is not empty, before it is migrated or written. */
export function refuseUnlessEmpty(what: string, contents: TargetContents): void {
  if (contents.occupied.length > 0 || contents.foreign.length > 0)
    throw notEmpty(what, contents.occupied, contents.foreign);
}

/** How a target is named in messages: the file, or the URL without its password. */
export function describeTarget(target: string): string {
  return isPostgresUrl(target) ? redactUrl(target) : target;
}

/**
 * Copy everything `source` reads into the empty database `target` (a SQLite file path or a
 * postgres:// URL), created and migrated by this build if needed. Each engine's Store.copyTo
 * is this call with its own source.
 */
export function copyInto(
  source: CopySource,
  target: string,
  onProgress?: (p: CopyProgress) => void,
  opts: { batch?: number; signal?: AbortSignal } = {},
): Promise<CopySummary> {
  const what = describeTarget(target);
  // The target's engine is imported only now: a copy between two SQLite files never loads pg.
  const open = async (): Promise<CopyTarget> =>
    isPostgresUrl(target)
      ? (await import('./postgres/copy.js')).openPgCopyTarget(target, COPY_TABLES)
      : (await import('./sqlite/copy.js')).openSqliteCopyTarget(target, COPY_TABLES);
  return copyDatabase(source, open, what, onProgress, opts.batch, { postgres: isPostgresUrl(target) }, opts.signal);
}

/**
 * Between batches: let the event loop run (a SQLite → SQLite copy is synchronous work chained by
 * promises, which would otherwise hold back the signal handler that aborts `signal`), then stop
 * if the caller asked to.
 */
async function checkpoint(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  signal.throwIfAborted();
}

/** The one line an interrupted copy ends with: what became of the target. */
async function undoInterrupted(target: CopyTarget, what: string): Promise<CopyInterrupted> {
  try {
    const how = await target.discard();
    const state = {
      removed: `${what}, which the copy created, was removed`,
      dropped: `${what} is as it was: the tables the copy created were dropped`,
      emptied: `${what} is empty again`,
    }[how];
    return new CopyInterrupted(`db copy interrupted: nothing was copied (${state})`, true);
  } catch (e) {
    return new CopyInterrupted(
      `db copy interrupted, and undoing it failed (${(e as Error).message}): ${what} holds part of the copy; empty or remove it before copying again`,
      false,
    );
  }
}

export async function copyDatabase(
  source: CopySource,
  openTarget: () => Promise<CopyTarget>,
  what: string,
  onProgress: (p: CopyProgress) => void = () => {},
  batch = COPY_BATCH,
  targetEngine: { postgres: boolean } = { postgres: true },
  signal?: AbortSignal,
): Promise<CopySummary> {
  try {
    const counts = new Map<string, number>();
    for (const t of COPY_TABLES) counts.set(t.name, await source.count(t));
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    // Interrupted before the target is touched: nothing to undo.
    if (signal?.aborted)
      throw new CopyInterrupted(`db copy interrupted: nothing was copied (${what} was not touched)`, true);
    const target = await openTarget();
    try {
      const occupied = await target.occupied(COPY_TABLES);
      if (occupied.length > 0) throw notEmpty(what, occupied);
      let written = 0;
      onProgress({ table: COPY_TABLES[0]?.name ?? '', copied: 0, total });
      // Everything from here on is undone by discard(): on a failure, and on an interrupt (the
      // target may have been created and migrated while the signal came).
      try {
        await checkpoint(signal);
        for (const table of COPY_TABLES) {
          const last = table.key.map((k) => table.columns.findIndex((c) => c.name === k));
          let after: CopyValue[] | null = null;
          for (;;) {
            const rows = await source.readBatch(table, after, batch);
            if (rows.length === 0) break;
            checkCopyText(table, rows, targetEngine);
            await insertOrName(target, table, rows);
            written += rows.length;
            onProgress({ table: table.name, copied: written, total });
            const end = rows[rows.length - 1] as CopyRow;
            after = last.map((i) => end[i] ?? null);
            if (rows.length < batch) break;
            await checkpoint(signal);
          }
        }
        await target.finish();
        const tables: Record<string, number> = {};
        for (const table of COPY_TABLES) {
          const want = counts.get(table.name) ?? 0;
          const got = await target.count(table);
          if (got !== want)
            throw new Error(`copy check failed: ${table.name} has ${got} rows in ${what}, ${want} in the source`);
          tables[table.name] = got;
        }
        // The last moment a stop still undoes the copy; after this it is whole and checked.
        await checkpoint(signal);
        return { tables };
      } catch (e) {
        if (signal?.aborted) throw await undoInterrupted(target, what);
        await target.discard().catch(() => {});
        throw e;
      }
    } finally {
      await target.close();
    }
  } finally {
    await source.end();
  }
}
