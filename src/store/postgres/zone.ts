import { StoreOpenError } from '../store.js';
import { get, run, type Conn } from './query.js';

/**
 * The time zone recorded when the database was created (as on SQLite): a later explicit
 * different zone is refused because stored billing times would shift. Several processes opening
 * a new database together agree on the first one recorded.
 */
export async function settleZone(db: Conn, wanted: string | undefined): Promise<string> {
  const row = await get<{ value: string }>(db, "SELECT value FROM meta WHERE key = 'tz'");
  if (row) {
    if (wanted !== undefined && wanted !== row.value) {
      throw new StoreOpenError(
        `this database uses time zone ${row.value}; it cannot be opened with ${wanted} (billing times would shift)`,
      );
    }
    return row.value;
  }
  await run(db, "INSERT INTO meta (key, value) VALUES ('tz', @zone) ON CONFLICT (key) DO NOTHING", {
    zone: wanted ?? 'UTC',
  });
  return settleZone(db, wanted);
}
