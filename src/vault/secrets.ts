import type { MerchantRow } from '../store/store.js';
import type { Vault } from './crypto.js';

/** The merchant's current signing secret (callbacks, tracking response sign). */
export function currentSecret(vault: Vault, row: Pick<MerchantRow, 'secretEnc'>): string {
  return vault.decrypt(row.secretEnc);
}
