import { ConnectionLostError } from '../../domain/errors.js';

/**
 * What went wrong, read from the driver's errors. drizzle wraps driver errors (DrizzleQueryError
 * with `cause`), services may wrap them again, so every test walks the cause chain.
 */

function* chain(e: unknown): Generator<Record<string, unknown>> {
  let cur: unknown = e;
  for (let depth = 0; depth < 10 && cur && typeof cur === 'object'; depth++) {
    yield cur as Record<string, unknown>;
    cur = (cur as { cause?: unknown }).cause;
  }
}

/** The SQLSTATE of the first PostgreSQL error in the chain (e.g. '23505'), if any. */
export function sqlState(e: unknown): string | undefined {
  for (const link of chain(e)) {
    const code = link.code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

export const SERIALIZATION_FAILURE = '40001';
export const DEADLOCK_DETECTED = '40P01';
export const UNIQUE_VIOLATION = '23505';

const LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
const LOST_MESSAGES =
  /connection terminated|connection error|not queryable|server closed the connection|timeout exceeded when trying to connect/i;

/**
 * The connection to the server is gone (server restart, failover, a terminated backend, a
 * network cut): SQLSTATE class 08 and 57P0x, socket errors, or the driver's own messages.
 */
export function isConnectionLost(e: unknown): boolean {
  for (const link of chain(e)) {
    const code = typeof link.code === 'string' ? link.code : '';
    if (code.startsWith('08') || /^57P0[123]$/.test(code) || LOST_CODES.has(code)) return true;
    if (typeof link.message === 'string' && LOST_MESSAGES.test(link.message)) return true;
  }
  return false;
}

/**
 * A unit of work lost its connection and is not run again: a write cut off before its COMMIT
 * was confirmed, or a read lost a second time. With committed=false nothing of it is in the
 * database; the caller reports a failure (9999) and the client may retry.
 */
export class PgConnectionLostError extends ConnectionLostError {
  constructor(committed: false | 'unknown', cause: unknown) {
    super(
      committed === false
        ? 'the database connection was lost; nothing was written'
        : 'the database connection was lost while committing and the server could not be reached to tell whether the change was saved',
      committed,
      { cause },
    );
    this.name = 'PgConnectionLostError';
  }
}
