import { connect } from 'node:net';

/** What came back on a raw TCP connection. */
export interface SocketAnswer {
  /** Status of the first response, 0 when nothing came back. */
  status: number;
  /** Headers of the first response, names in lower case. */
  headers: Record<string, string>;
  /** Everything after the first response's head (the body, and anything after it). */
  body: string;
  /** The server closed the connection before `waitMs` was over. */
  closed: boolean;
}

/**
 * Send bytes exactly as given on a fresh connection to `base` (http://host:port), for what a
 * client library refuses to send: absolute-form request lines, `//` paths, malformed HTTP,
 * oversized URLs, lying Content-Length headers. Resolves when the server closes the
 * connection, or after `waitMs` with `closed: false`.
 */
export function sendRaw(base: string, request: string | Buffer, waitMs = 10_000): Promise<SocketAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(request));
    const done = (closed: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const head = end < 0 ? text : text.slice(0, end);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0),
        headers,
        body: end < 0 ? '' : text.slice(end + 4),
        closed,
      });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (d: Buffer) => chunks.push(d));
    // A server that closes while we are still writing resets the connection: what it answered counts.
    socket.on('error', (e: NodeJS.ErrnoException) =>
      e.code === 'ECONNRESET' || e.code === 'EPIPE' ? undefined : reject(e),
    );
    socket.on('close', () => done(true));
  });
}

/** The JSON of a raw answer's body (Content-Length bodies only: paygate does not chunk errors). */
export function jsonOf(answer: SocketAnswer): any {
  const length = Number(answer.headers['content-length']);
  return JSON.parse(
    Number.isFinite(length) ? Buffer.from(answer.body, 'utf8').subarray(0, length).toString('utf8') : answer.body,
  );
}
