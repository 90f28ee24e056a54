import type { IncomingMessage } from 'node:http';

/**
 * A body up to this size that paygate refuses unread (413, 415, …) is read and discarded before
 * the connection closes: closing on unread bytes makes the kernel reset the connection, and a
 * client still uploading then sees EPIPE or ECONNRESET instead of the answer (RFC 9112 §9.6,
 * "lingering close"). A larger declared body is not worth reading: the answer goes out at once.
 */
export const DRAIN_LIMIT = 8 * 1024 * 1024;
/** A client that stops sending is not waited for longer than this. */
const DRAIN_IDLE_MS = 1_000;
const DRAIN_TOTAL_MS = 10_000;

/** Whether the rest of this request is worth reading before the answer: declared small enough, or chunked. */
export function worthDraining(req: IncomingMessage): boolean {
  if (req.complete || req.destroyed) return false;
  const declared = req.headers['content-length'];
  if (declared === undefined) return req.headers['transfer-encoding'] !== undefined;
  const n = Number(declared);
  return Number.isSafeInteger(n) && n <= DRAIN_LIMIT;
}

/** Reads and discards the rest of the body; resolves at its end, at DRAIN_LIMIT bytes, or when the client goes quiet. */
export function drainRequest(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    let read = 0;
    let idle: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(idle);
      clearTimeout(total);
      req.off('data', onData);
      req.off('end', finish);
      req.off('close', finish);
      req.off('error', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DRAIN_LIMIT) return finish();
      clearTimeout(idle);
      idle = setTimeout(finish, DRAIN_IDLE_MS);
    };
    const total = setTimeout(finish, DRAIN_TOTAL_MS);
    idle = setTimeout(finish, DRAIN_IDLE_MS);
    req.on('data', onData);
    req.once('end', finish);
    req.once('close', finish);
    req.once('error', finish);
    req.resume();
  });
}
