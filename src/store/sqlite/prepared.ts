import type { Statement } from './driver.js';
import type { Sqlite } from './client.js';

/**
 * Prepared statements cached once per connection (hot paths must not re-prepare per call).
 * Keyed by the SQL text, so a repository just writes `prepared(sqlite, SQL).run(...)`.
 */
const cache = new WeakMap<Sqlite, Map<string, Statement>>();

export function prepared(sqlite: Sqlite, sql: string): Statement {
  let perConn = cache.get(sqlite);
  if (!perConn) {
    perConn = new Map();
    cache.set(sqlite, perConn);
  }
  let stmt = perConn.get(sql);
  if (!stmt) {
    stmt = sqlite.prepare(sql);
    perConn.set(sql, stmt);
  }
  return stmt;
}
