import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyInstance } from 'fastify';
import { RESULT_CODES } from '../domain/errors.js';
import { failure } from './envelope.js';

/**
 * What Node's HTTP parser refused, as the status and message of a 1000. A request that never
 * finished is 400 too, not 408: SPEC §3 answers 1000 with 400, 413 or 415 only.
 */
function answerOf(code: string | undefined): { status: number; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW')
    return { status: 400, message: 'malformed request: the request line and headers are larger than 16 KB' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: 400, message: 'malformed request: the request was not received in time' };
  return { status: 400, message: 'malformed request: not valid HTTP/1.1' };
}

/**
 * Node's `clientError`: the parser gave up on a connection before fastify saw a request (a URL
 * over 16 KB, malformed HTTP, a request that never finished). Answer in the envelope like every
 * other refusal where a response can still be written, then close: the rest of the stream
 * cannot be parsed. The packet itself is never logged (it may hold an apiKey or a page token).
 */
export function clientErrorHandler(this: FastifyInstance, err: ConnectionError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = answerOf(err.code);
  // Every answer carries a request id (docs/api.md), this one too, though no handler saw it.
  const reqId = randomUUID();
  this.log.info({ reqId, code: err.code, status }, 'client error');
  // As Node does: write only when no response of this connection has started, or the peer would
  // read our bytes as the middle of another answer.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(failure(RESULT_CODES.MALFORMED, message));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Cache-Control: no-store\r\n' +
      'X-Content-Type-Options: nosniff\r\n' +
      `x-request-id: ${reqId}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
    () => socket.destroy(),
  );
}
