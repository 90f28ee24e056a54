import { pgTable, text, boolean, bigint, index } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';

/**
 * Sliding-window rate limits shared by every instance on one database: per key (a merchant's
 * budget bucket, or a client address), the instants of the hits counted in the last window.
 * One row per key makes the count-and-record a single upsert that locks that row, so
 * concurrent hits from any number of processes are counted exactly.
 */
export const rateLimitWindows = pgTable(
  'rate_limit_windows',
  {
    key: text('key').primaryKey(),
    /** Epoch ms of the counted hits inside the window, oldest first; at most `limit` of them. */
    hits: bigint('hits', { mode: 'number' }).array().notNull(),
    /** Whether the last hit recorded on this row was allowed (read back by the same statement). */
    lastAllowed: boolean('last_allowed').notNull(),
    lastHitAt: instant('last_hit_at').notNull(),
  },
  // Sweeping idle keys reads only those.
  (t) => [index('rate_limit_windows_last_hit').on(t.lastHitAt)],
);
