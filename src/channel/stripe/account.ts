import type Stripe from 'stripe';
import { keyShapeError } from './key-shape.js';
import { mapFault } from './map.js';

export type KeyCheck =
  | { ok: true; livemode: boolean }
  | {
      ok: false;
      /** malformed: not a secret or restricted key at all; unreachable: Stripe could not be asked. */
      cause: 'malformed' | 'key_rejected' | 'permission_denied' | 'invalid_request' | 'unreachable';
      message: string;
    };

/**
 * One read (GET /v1/balance) with the key: proves Stripe accepts it before paygate stores it.
 * A restricted key needs "Balance: Read" for this check besides the permissions it charges with.
 */
export async function checkKey(client: Stripe, key: string): Promise<KeyCheck> {
  const shape = keyShapeError(key);
  if (shape) return { ok: false, cause: 'malformed', message: shape };
  try {
    const balance = await client.balance.retrieve();
    return { ok: true, livemode: balance.livemode };
  } catch (err) {
    const r = mapFault(err, false);
    if (r.outcome === 'in_flight') {
      return {
        ok: false,
        cause: 'unreachable',
        message: `Stripe could not be reached to check the key (${r.cause}); nothing was changed`,
      };
    }
    if (r.cause === 'key_rejected')
      return { ok: false, cause: 'key_rejected', message: `Stripe rejected the key: ${r.message}` };
    if (r.cause === 'permission_denied')
      return {
        ok: false,
        cause: 'permission_denied',
        message: `the restricted key may not read the balance: ${r.message}`,
      };
    return { ok: false, cause: 'invalid_request', message: r.message };
  }
}
