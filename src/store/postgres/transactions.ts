import type { IdempotencyRow, IdempotencyScope } from '../store.js';
import { getIdempotency } from '../sql/transactions.js';
import { get, pgDb, type Conn } from './query.js';

/**
 * Inside a unit of work the read first takes a transaction-level advisory lock on the key: a
 * concurrent duplicate of the request (same merchant, scope and requestId, on any instance) waits
 * here until the first one commits, and then reads its row. Without it, under READ COMMITTED the
 * duplicate could miss the key and then see the first one's transaction by relationId (each
 * statement reads the latest commit), answering "relationId already used" instead of the result.
 */
export async function lockIdempotency(
  db: Conn,
  merchantId: string,
  scope: IdempotencyScope,
  requestId: string,
): Promise<IdempotencyRow | undefined> {
  // Two statements in one round trip (the connection is pipelined): the read is sent at once but
  // the server starts it, and takes its snapshot, only after the lock is granted.
  const [, row] = await Promise.all([
    get(db, 'SELECT pg_advisory_xact_lock(hashtextextended(@key, 0)) AS l', {
      key: `idem:${merchantId}:${scope}:${requestId}`,
    }),
    getIdempotency(pgDb(db), merchantId, scope, requestId),
  ]);
  return row;
}
