import { closeSync, fchmodSync, lstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { StoreOpenError } from '../store.js';

/**
 * Database files hold card data (sealed), fingerprints and every merchant's records: only their
 * owner may read them (SPEC §1: database, WAL and backups are mode 0600).
 *
 * SQLite creates `-wal`, `-shm` and `-journal` files with the mode of the database file itself
 * (unix VFS: findCreateFileMode, and a chmod on the freshly created file, so the umask does not
 * matter), each time it recreates them — after the last connection closes and deletes them, after
 * a restart. So a database file that is 0600 keeps its companions 0600 for good.
 */
export const PRIVATE_MODE = 0o600;

/**
 * Create `path` empty with mode 0600 before SQLite writes a byte into it (SQLite takes an empty
 * file as a new database). fchmod after open makes the mode independent of the process umask.
 * Returns false when the file already exists: it is not ours, so its mode is not ours to set
 * (SPEC §1: paygate changes the mode of files it creates and of nothing else).
 */
export function createPrivateFile(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', PRIVATE_MODE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    fchmodSync(fd, PRIVATE_MODE);
  } finally {
    closeSync(fd);
  }
  return true;
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

// The checks below open the file with a descriptor of their own. Never run them on a file this
// process holds open through SQLite: closing any descriptor of a file drops every POSIX lock the
// process holds on it, SQLite's among them (see openSqlite's `besideOpen`).

/**
 * Refuse a `--db` path that is not a SQLite database before anything opens it, so a mistyped
 * path changes nothing on disk: a directory (SQLite would fail only after the file was touched),
 * a device or pipe, a dangling link (SQLite would create the file at its target), or a file
 * whose first bytes are not SQLite's header (SQLite would write a journal beside it first). A
 * missing path and an empty file are a new database, as SQLite itself takes them.
 */
export function refuseNonDatabase(path: string): void {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw openError(path, e);
    if (isLink(path)) throw refused(path, 'it is a symbolic link to a file that does not exist');
    return;
  }
  if (st.isDirectory()) {
    throw refused(path, `it is a directory (a database is a file, for example ${join(path, 'paygate.db')})`);
  }
  if (!st.isFile()) throw refused(path, 'it is not a regular file');
  if (st.size === 0) return;
  if (!startsWithHeader(path)) {
    throw refused(path, 'it is not a SQLite database file');
  }
}

/**
 * Refuse an existing database this process cannot open for writing (mode 0400, another user's
 * file, a read-only mount), the way SQLite itself tries it (open read-write). SQLite would
 * otherwise fall back to read-only without a word: reads work, the first write fails as "attempt
 * to write a readonly database" (9999), and the WAL and shared-memory files it creates meanwhile
 * take the file's read-only mode. Opening read-write and closing writes nothing.
 */
export function refuseReadOnlyFile(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'r+');
  } catch (e) {
    const why = NOT_WRITABLE[(e as NodeJS.ErrnoException).code ?? ''];
    if (why) throw refused(path, `it cannot be opened for writing (${why})`);
    throw openError(path, e);
  }
  closeSync(fd);
}

const NOT_WRITABLE: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
};

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function startsWithHeader(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw openError(path, e);
  }
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const n = readSync(fd, head, 0, head.length, 0);
    return n === head.length && head.equals(SQLITE_HEADER);
  } finally {
    closeSync(fd);
  }
}

const refused = (path: string, why: string): StoreOpenError =>
  new StoreOpenError(`cannot open database ${path}: ${why}; nothing was changed`);

const openError = (path: string, e: unknown): StoreOpenError =>
  new StoreOpenError(`cannot open database ${path}: ${(e as Error).message}`);
