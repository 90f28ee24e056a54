import type { MerchantRow } from '../store.js';
import { all, get, run, selectList, type Conn } from './query.js';

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
const SELECT = `SELECT ${selectList(COLUMNS)} FROM merchants`;

export function getMerchant(db: Conn, id: string): Promise<MerchantRow | undefined> {
  return get(db, `${SELECT} WHERE id = @id`, { id });
}

/**
 * By the current apiKey, else by the previous one (rotated within 24 h: the caller checks
 * prevApiKeyUntil). Two indexed lookups rather than an OR: the usual hit costs one.
 */
export async function getMerchantByApiKey(db: Conn, apiKey: string): Promise<MerchantRow | undefined> {
  return (
    (await get<MerchantRow>(db, `${SELECT} WHERE api_key = @apiKey`, { apiKey })) ??
    (await get<MerchantRow>(db, `${SELECT} WHERE prev_api_key = @apiKey`, { apiKey }))
  );
}

export function listMerchantRows(db: Conn): Promise<MerchantRow[]> {
  return all(db, `${SELECT} ORDER BY created_at, id COLLATE "C"`);
}

export async function insertMerchant(db: Conn, row: MerchantRow): Promise<void> {
  await run(
    db,
    `INSERT INTO merchants (${KEYS.map((k) => COLUMNS[k]).join(', ')}) VALUES (${KEYS.map((k) => `@${k}`).join(', ')})`,
    row,
  );
}

export async function updateMerchantRow(db: Conn, id: string, patch: Partial<Omit<MerchantRow, 'id'>>): Promise<void> {
  const keys = (Object.keys(patch) as (keyof MerchantRow)[])
    .filter((k) => k !== 'id' && patch[k as keyof typeof patch] !== undefined)
    .sort();
  if (keys.length === 0) return;
  await run(db, `UPDATE merchants SET ${keys.map((k) => `${COLUMNS[k]} = @${k}`).join(', ')} WHERE id = @id`, {
    ...patch,
    id,
  });
}
