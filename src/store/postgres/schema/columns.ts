import { bigint } from 'drizzle-orm/pg-core';

/**
 * Money is integer minor units and instants are epoch milliseconds, as on SQLite. Both exceed
 * int4 (ms since 1970 does today), so both are int8, read as JS numbers: every value paygate
 * writes stays far below 2^53.
 */
export const money = <N extends string>(name: N) => bigint(name, { mode: 'number' });
export const instant = <N extends string>(name: N) => bigint(name, { mode: 'number' });
