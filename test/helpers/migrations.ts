import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { onPostgres } from './ctx.js';

/** The migrations of the engine under test. */
const FOLDER = join(import.meta.dirname, '../../drizzle', onPostgres ? 'postgres' : '');

/**
 * The statements of the migration tagged `…_<name>` of the engine under test, as the migrator
 * reads them: a backfill is tested by running its file again on rows as the release before left them.
 */
export function migration(name: string): string[] {
  const journal = JSON.parse(readFileSync(join(FOLDER, 'meta/_journal.json'), 'utf8')) as {
    entries: Array<{ when: number; tag: string }>;
  };
  const when = journal.entries.find((e) => e.tag.endsWith(`_${name}`))?.when;
  const m = readMigrationFiles({ migrationsFolder: FOLDER }).find((f) => f.folderMillis === when);
  if (!m) throw new Error(`no migration ${name}`);
  return m.sql.filter((s) => s.trim() !== '');
}
