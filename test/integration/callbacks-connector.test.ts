import { createServer, type Server } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { buildConnector } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallbackPrivateMode } from '../../src/notify/address-policy.js';
import { guardedConnector, RefusedTargetError } from '../../src/notify/connector.js';

/*
 * The connector every callback connection goes through, against a real TCP listener on
 * loopback: it refuses before connecting, on the addresses resolved for this connection.
 */

let server: Server;
let port: number;
let accepted = 0;
let onAccept: (() => void) | undefined;

beforeAll(async () => {
  server = createServer((s) => {
    accepted++;
    onAccept?.();
    s.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function connect(mode: CallbackPrivateMode, hostname: string): Promise<Socket> {
  const connector = guardedConnector(buildConnector, mode, { timeout: 5_000 });
  return new Promise((resolve, reject) =>
    connector({ hostname, protocol: 'http:', port: String(port) }, (...args) => {
      const [err, socket] = args;
      if (err) reject(err);
      else resolve(socket as Socket);
    }),
  );
}

describe('the callback connector', () => {
  it('by default connects to loopback, by address and by name', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const reached = new Promise<void>((resolve) => (onAccept = resolve));
      const socket = await connect('allow', host);
      expect(socket.remoteAddress).toBe('127.0.0.1');
      socket.destroy();
      await reached;
    }
  });

  it('with deny refuses loopback by address before connecting, and by name on what it resolves to', async () => {
    const before = accepted;
    await expect(connect('deny', '127.0.0.1')).rejects.toThrow(
      new RefusedTargetError(
        'refused: 127.0.0.1 is a loopback address; PAYGATE_CALLBACK_PRIVATE=deny allows only global addresses',
      ),
    );
    await expect(connect('deny', '[::ffff:7f00:1]')).rejects.toBeInstanceOf(RefusedTargetError);
    await expect(connect('deny', 'localhost')).rejects.toThrow(
      /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
    );
    expect(accepted).toBe(before); // refused before any connection was opened
  });

  it('refuses metadata addresses in every mode without connecting', async () => {
    for (const mode of ['allow', 'deny'] as const) {
      await expect(connect(mode, '169.254.169.254')).rejects.toThrow(
        /^refused: 169\.254\.169\.254 is a link-local or cloud metadata address; callbacks never go there$/,
      );
      await expect(connect(mode, '[fd00:ec2::254]')).rejects.toBeInstanceOf(RefusedTargetError);
    }
  });
});
