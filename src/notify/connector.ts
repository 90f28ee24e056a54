import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { buildConnector } from 'undici';
import { addressRefusal, describeRefusal, refusalText, type CallbackPrivateMode } from './address-policy.js';

/**
 * The connect step of callback delivery: the address policy is applied to the addresses the
 * socket is about to use, resolved for this very connection, so a name that resolved publicly
 * when it was checked and privately a second later (DNS rebinding) cannot slip through.
 *
 * - a literal IP host is checked before anything is opened (net.connect does not look it up);
 * - a name is resolved by a guarded lookup that fails the connection when ANY of its addresses
 *   is refused (otherwise the connection could pick the refused one);
 * - the connected socket's remote address is checked again before the socket is handed to
 *   undici, so no request byte is ever written to a refused address.
 */

/** The error of a refused connection; postJson reports its message as the attempt's reason. */
export class RefusedTargetError extends Error {
  readonly code = 'EPAYGATE_REFUSED';
  override readonly name = 'RefusedTargetError';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function guardedLookup(mode: CallbackPrivateMode) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(
      hostname,
      { ...options },
      (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
        if (err) return callback(err, address, family);
        const list = typeof address === 'string' ? [address] : address.map((a) => a.address);
        for (const a of list) {
          const r = addressRefusal(a, mode);
          if (r !== undefined)
            return callback(
              new RefusedTargetError(`refused: ${hostname} resolves to ${r.address}, ${refusalText(r)}`),
              address,
              family,
            );
        }
        callback(null, address, family);
      },
    );
  };
}

export function guardedConnector(
  build: typeof buildConnector,
  mode: CallbackPrivateMode,
  options: { timeout: number },
): buildConnector.connector {
  const connect = build({ timeout: options.timeout, lookup: guardedLookup(mode) });
  return (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const r = addressRefusal(host, mode);
      if (r !== undefined) return callback(new RefusedTargetError(`refused: ${describeRefusal(r)}`), null);
    }
    connect(opts, (...args) => {
      const [err, socket] = args;
      if (err !== null) return callback(err, null);
      const remote = socket.remoteAddress ?? '(unknown)';
      const r = addressRefusal(remote, mode);
      if (r !== undefined) {
        socket.destroy();
        return callback(new RefusedTargetError(`refused: ${host} connected to ${r.address}, ${refusalText(r)}`), null);
      }
      callback(null, socket);
    });
  };
}
