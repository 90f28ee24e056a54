import type { Vault } from './crypto.js';

/** The merchant's current signing secret (callbacks, tracking response sign). */
export function currentSecret(vault: Vault, row: { secretEnc: string }): string {
  return vault.decrypt(row.secretEnc);
}
