import { StoreOpenError } from '../../domain/errors.js';
import type { Db } from './db.js';

/**
 * The time zone recorded when the database was created: a later explicit different zone is
 * refused because stored billing times would shift. Several processes opening a new database
 * together agree on the first one recorded.
 */
export async function settleZone(db: Db, wanted: string | undefined): Promise<string> {
  const row = await db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'tz'");
  if (row) {
    if (wanted !== undefined && wanted !== row.value) {
      throw new StoreOpenError(
        `this database uses time zone ${row.value}; it cannot be opened with ${wanted} (billing times would shift)`,
      );
    }
    return row.value;
  }
  await db.run("INSERT INTO meta (key, value) VALUES ('tz', @zone) ON CONFLICT (key) DO NOTHING", {
    zone: wanted ?? 'UTC',
  });
  return settleZone(db, wanted);
}
