import type { MerchantRow } from '../store.js';
import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';

const COLUMNS: Record<keyof MerchantRow, string> = {
  id: 'id',
  name: 'name',
  apiKey: 'api_key',
  prevApiKey: 'prev_api_key',
  prevApiKeyUntil: 'prev_api_key_until',
  secretEnc: 'secret_enc',
  prevSecretEnc: 'prev_secret_enc',
  prevSecretUntil: 'prev_secret_until',
  signatureVersion: 'signature_version',
  notifyUrl: 'notify_url',
  status: 'status',
  channel: 'channel',
  stripeSecretKeyEnc: 'stripe_secret_key_enc',
  stripeWebhookSecretEnc: 'stripe_webhook_secret_enc',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};
const KEYS = Object.keys(COLUMNS) as (keyof MerchantRow)[];
const SELECT = `SELECT ${KEYS.map((k) => `${COLUMNS[k]} AS ${k}`).join(', ')} FROM merchants`;

/** Every API request looks its merchant up: prepared statements, cached per connection. */
export function getMerchant(sqlite: Sqlite, id: string): MerchantRow | undefined {
  return prepared(sqlite, `${SELECT} WHERE id = ?`).get(id) as MerchantRow | undefined;
}

/**
 * By the current apiKey, else by the previous one (rotated within 24 h: the caller checks
 * prevApiKeyUntil). Two indexed lookups rather than an OR: the usual hit costs one.
 */
export function getMerchantByApiKey(sqlite: Sqlite, apiKey: string): MerchantRow | undefined {
  return (
    (prepared(sqlite, `${SELECT} WHERE api_key = ?`).get(apiKey) as MerchantRow | undefined) ??
    (prepared(sqlite, `${SELECT} WHERE prev_api_key = ?`).get(apiKey) as MerchantRow | undefined)
  );
}

export function listMerchantRows(sqlite: Sqlite): MerchantRow[] {
  return prepared(sqlite, `${SELECT} ORDER BY created_at, id`).all() as MerchantRow[];
}

export function insertMerchant(sqlite: Sqlite, row: MerchantRow): void {
  prepared(
    sqlite,
    `INSERT INTO merchants (${KEYS.map((k) => COLUMNS[k]).join(', ')}) VALUES (${KEYS.map((k) => `@${k}`).join(', ')})`,
  ).run(row);
}

export function updateMerchantRow(sqlite: Sqlite, id: string, patch: Partial<Omit<MerchantRow, 'id'>>): void {
  const keys = (Object.keys(patch) as (keyof MerchantRow)[])
    .filter((k) => k !== 'id' && patch[k as keyof typeof patch] !== undefined)
    .sort();
  if (keys.length === 0) return;
  prepared(sqlite, `UPDATE merchants SET ${keys.map((k) => `${COLUMNS[k]} = @${k}`).join(', ')} WHERE id = @id`).run({
    ...patch,
    id,
  });
}
