import { statSync } from 'node:fs';

/**
 * A SQLite database's files that group or others can access. paygate creates them 0600 but does
 * not change the mode of a file it did not create (SPEC §1): an operator may have chosen it, and
 * a chmod on a mistyped path once broke a shared directory. So a loose mode is reported, not fixed.
 */
export function exposedDatabaseFiles(dbPath: string): Array<{ path: string; mode: number }> {
  const exposed: Array<{ path: string; mode: number }> = [];
  for (const path of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) {
    let mode: number;
    try {
      mode = statSync(path).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) exposed.push({ path, mode });
  }
  return exposed;
}

/** One warning line for them (stderr: --json on stdout stays clean), or nothing when there are none. */
export function exposedFilesWarning(files: ReadonlyArray<{ path: string; mode: number }>): string {
  const [first] = files;
  if (first === undefined) return '';
  return `paygate: warning: the database ${first.path} is accessible by group or others (mode 0${first.mode.toString(8)}) and holds your merchants' records: chmod 600 ${files.map((f) => f.path).join(' ')}\n`;
}
