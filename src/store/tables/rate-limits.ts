import { boolean, index, instant, instants, table, text } from './define.js';

/**
 * Sliding-window rate limits shared by every instance on one PostgreSQL database: per key (a
 * merchant's budget bucket, or a client address), the instants of the hits counted in the last
 * window. One row per key makes the count-and-record a single upsert that locks that row, so
 * concurrent hits from any number of processes are counted exactly.
 */
export const rateLimitWindows = table(
  'rate_limit_windows',
  {
    key: text().primaryKey(),
    /** Epoch ms of the counted hits inside the window, oldest first; at most `limit` of them. */
    hits: instants().notNull(),
    /** Whether the last hit recorded on this row was allowed (read back by the same statement). */
    lastAllowed: boolean().notNull(),
    lastHitAt: instant().notNull(),
  },
  // Sweeping idle keys reads only those.
  { indexes: [index('rate_limit_windows_last_hit', ['lastHitAt'])], postgresOnly: true },
);
