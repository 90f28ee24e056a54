import { rmSync } from 'node:fs';
import { invalidParam } from '../../domain/errors.js';
import type {
  Acceptance,
  Accepted,
  ChargeOutcome,
  CopyProgress,
  CopySummary,
  OutcomeRecorded,
  SandboxPaid,
  RekeyOptions,
  Store,
  Tx,
} from '../store.js';
import { acceptInUnit, payOnSandboxInUnit, recordOutcomeInUnit } from '../sql/pay.js';
import { SqlReads } from '../sql/reads.js';
import { type EngineTx, SqlTx } from '../sql/tx.js';
import { settleZone } from '../sql/zone.js';
import { openSqlite, type Sqlite } from './client.js';
import { sqliteDb } from './db.js';
import { createPrivateFile } from './files.js';
import { keyPlainFingerprints } from './fingerprints.js';
import * as renewals from './renewals.js';
import { createWriter } from './writer.js';

/**
 * The SQLite engine behind the store boundary: the shared statements (store/sql/) over its
 * connections, and its own where SQLite is used its own way (the claims its one writer makes
 * alone, group commit). Two connections to one WAL file:
 *  - the writer connection runs every unit of work, group-committed (writer.ts);
 *  - a read-only connection answers `Store` reads. In WAL mode it sees the last COMMIT, never a
 *    batch the writer has open — which matters because a batch's calls are awaited one by one,
 *    so other requests' code runs (in microtasks) while the batch is between BEGIN and COMMIT.
 */
/** The writer runs alone (BEGIN IMMEDIATE): a locking read is a plain read, claims need no SKIP LOCKED. */
function engineTx(sqlite: Sqlite): EngineTx {
  return {
    claimDueRecords: async (ids, c) => renewals.claimDueRecords(sqlite, ids, c),
  };
}

export class SqliteStore extends SqlReads implements Store {
  private readonly writer;

  constructor(
    /** The writer connection. Tests reach it through `sqliteOf` to inspect rows; nothing in src/ does. */
    readonly connection: Sqlite,
    private readonly reader: Sqlite,
  ) {
    super(sqliteDb(reader));
    // One instance per writer connection, handed to every unit of work.
    this.writer = createWriter<Tx>(connection, new SqlTx(sqliteDb(connection), engineTx(connection)));
  }

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.writer.transaction(fn);
  }

  acceptTransaction(a: Acceptance): Promise<Accepted> {
    return acceptInUnit(this, a);
  }

  recordSandboxOutcome(o: ChargeOutcome): Promise<OutcomeRecorded> {
    return recordOutcomeInUnit(this, o);
  }

  payOnSandbox(a: Acceptance, o: ChargeOutcome): Promise<SandboxPaid> {
    return payOnSandboxInUnit(this, a, o);
  }

  settleZone(wanted: string | undefined): Promise<string> {
    return settleZone(sqliteDb(this.connection), wanted);
  }

  async backup(file: string): Promise<{ pages: number }> {
    // The copy is as sensitive as the database: 0600 before the first page is written into it.
    // 'wx' does not follow a link: a link to nowhere is taken like any file (never written through).
    if (!createPrivateFile(file)) throw invalidParam('file', `${file} already exists`);
    try {
      const result = await this.connection.backup(file);
      return { pages: result.totalPages };
    } catch (e) {
      rmSync(file, { force: true });
      throw e;
    }
  }

  async copyTo(target: string, onProgress?: (p: CopyProgress) => void, signal?: AbortSignal): Promise<CopySummary> {
    // The read-only connection holds the snapshot (the writer, for ':memory:', which has one).
    // `db copy` only: the copy modules (and the other engine) are not loaded by any other command.
    const [{ copyInto }, { sqliteCopySource }] = await Promise.all([import('../copy.js'), import('./copy.js')]);
    return copyInto(sqliteCopySource(this.reader), target, onProgress, { signal });
  }

  async keyPlainFingerprints(opts: RekeyOptions): Promise<number> {
    return keyPlainFingerprints(this.connection, opts);
  }

  /** Old ciphertexts linger in free pages and the WAL until overwritten: checkpoint, vacuum, checkpoint. */
  async compact(): Promise<void> {
    this.connection.pragma('wal_checkpoint(TRUNCATE)');
    this.connection.exec('VACUUM');
    this.connection.pragma('wal_checkpoint(TRUNCATE)');
  }

  async close(): Promise<void> {
    if (this.reader !== this.connection) this.reader.close();
    this.connection.close();
  }
}

/** Open (creating and migrating if needed) a SQLite database file. */
export function openSqliteStore(path: string): SqliteStore {
  const writer = openSqlite(path);
  // A second connection to ':memory:' would be another, empty database: one connection serves
  // both (such a database lives in one process, used by nothing concurrent in practice).
  if (path === ':memory:') return new SqliteStore(writer, writer);
  try {
    return new SqliteStore(writer, openSqlite(path, { readonly: true, besideOpen: true }));
  } catch (e) {
    writer.close();
    throw e;
  }
}
