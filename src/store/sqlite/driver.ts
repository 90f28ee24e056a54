import type BetterSqlite3 from 'better-sqlite3';

/**
 * The SQLite driver for the running Node. better-sqlite3 12 (the `better-sqlite3` dependency) is
 * the one that runs on Node 20, but on Node 24 its statements abort the process when the garbage
 * collector frees them (`Assertion failed: (env) != nullptr` in RemoveEnvironmentCleanupHook:
 * Node 24's ObjectWrap removes a cleanup hook that 12's destructor calls outside any
 * Environment). better-sqlite3 13 is rewritten on Node-API and does not, but needs Node 22 and
 * segfaults on Node 20. So Node 22 and newer load 13, installed as the optional
 * `better-sqlite3-napi` alias (npm skips it on Node 20: the project's .npmrc sets engine-strict,
 * which turns an optional dependency's engine mismatch into "not installed" instead of a warning);
 * both versions have the same JavaScript API.
 */
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
// Named through a variable: the alias has no type declarations of its own (it is the same API).
const NAPI = 'better-sqlite3-napi';

async function load(): Promise<typeof BetterSqlite3> {
  if (NODE_MAJOR >= 22) {
    try {
      return ((await import(NAPI)) as { default: typeof BetterSqlite3 }).default;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw e;
      // Installed without optional dependencies: 12 works on Node 22, and on Node 24 until the
      // first statement is freed — say so rather than abort later without a word.
      if (NODE_MAJOR >= 24)
        process.emitWarning(
          'better-sqlite3-napi is not installed: Node 24 needs it (run npm ci without --omit=optional)',
        );
    }
  }
  return (await import('better-sqlite3')).default;
}

export const Database = await load();
export type Database = BetterSqlite3.Database;
export type Statement = BetterSqlite3.Statement;
