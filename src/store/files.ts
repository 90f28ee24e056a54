import { chmodSync, closeSync, fchmodSync, openSync, statSync } from 'node:fs';

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
 * Returns false when the file already exists (created by someone else first: not ours to reset).
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

/**
 * An existing database (and its WAL and shared-memory files) that group or others may access, as
 * earlier versions left them under umask 022, loses those bits on open (0644 → 0600); the
 * owner's bits are never widened. Files this process does not
 * own cannot be changed (EPERM): left as they are, the owner's open will fix them.
 */
export function restrictDatabaseFiles(dbPath: string): void {
  for (const path of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) {
    let mode: number;
    try {
      mode = statSync(path).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) === 0) continue;
    try {
      chmodSync(path, mode & 0o700);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EPERM' && code !== 'ENOENT') throw e;
    }
  }
}
