import { createServer, connect, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of the real PostgreSQL server that can cut a connection at the
 * worst moment: when the client sends COMMIT, or a statement that commits by itself (an
 * autocommit write, named by a piece of its SQL). `deliver` passes it on to the server and then
 * cuts the client off before the answer (the change is saved, the client cannot know); `drop`
 * cuts the connection without passing it on (nothing of it reaches the server).
 * Lost-connection handling is tested against a real server this way, not a mock.
 */
export interface CutProxy {
  /** The same URL, through the proxy. */
  url: string;
  /** Cut the next connection that sends COMMIT, once. */
  cutNextCommit(mode: 'deliver' | 'drop'): void;
  /** Cut the next connection that sends a statement holding `sql`, once. */
  cutNextStatement(mode: 'deliver' | 'drop', sql: string): void;
  /** Connections cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

const COMMIT = Buffer.from('COMMIT\0');

export async function startCutProxy(targetUrl: string): Promise<CutProxy> {
  const target = new URL(targetUrl);
  let armed: 'deliver' | 'drop' | undefined;
  let trigger = COMMIT;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let severed = false;
    const cut = (): void => {
      client.destroy();
      // end(), not destroy(): bytes already written still reach the server, then it sees EOF.
      upstream.end();
    };
    client.on('data', (chunk: Buffer) => {
      if (armed && chunk.includes(trigger)) {
        const mode = armed;
        armed = undefined;
        // From here the server's answer never reaches the client.
        severed = true;
        cuts++;
        if (mode === 'deliver') upstream.write(chunk, cut);
        else cut();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!severed && !client.destroyed) client.write(chunk);
    });
    client.on('close', () => upstream.end());
    upstream.on('close', () => client.destroy());
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const proxied = new URL(targetUrl);
  proxied.port = String(typeof addr === 'object' && addr ? addr.port : 0);
  return {
    url: proxied.toString(),
    get cuts() {
      return cuts;
    },
    cutNextCommit: (mode) => {
      trigger = COMMIT;
      armed = mode;
    },
    cutNextStatement: (mode, sql) => {
      trigger = Buffer.from(sql);
      armed = mode;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
