import type { OwnedId, PageWindow } from '../store.js';
import { all, get, type Conn } from './query.js';

/** The operator's queries across merchants (see the SQLite engine). */

export async function planOwner(db: Conn, planId: string): Promise<string | undefined> {
  return (await get<{ m: string }>(db, 'SELECT merchant_id AS m FROM plans WHERE id = @planId', { planId }))?.m;
}

export function subscriptionOwner(
  db: Conn,
  idOrCode: string,
): Promise<{ id: string; code: string; merchantId: string } | undefined> {
  return get(
    db,
    'SELECT id, code, merchant_id AS "merchantId" FROM subscriptions WHERE id = @ref OR code = @ref LIMIT 1',
    { ref: idOrCode },
  );
}

export async function transactionOwner(db: Conn, id: string): Promise<string | undefined> {
  return (await get<{ m: string }>(db, 'SELECT merchant_id AS m FROM transactions WHERE id = @id', { id }))?.m;
}

export function pagePlanIds(
  db: Conn,
  f: { merchantId?: string | undefined; status?: string | undefined } & PageWindow,
): Promise<OwnedId[]> {
  return all(
    db,
    `SELECT id, merchant_id AS "merchantId" FROM plans
     WHERE (@merchantId::text IS NULL OR merchant_id = @merchantId::text) AND (@status::text IS NULL OR status = @status::text)
     ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT @limit OFFSET @offset`,
    { merchantId: f.merchantId ?? null, status: f.status ?? null, limit: f.limit + 1, offset: f.offset },
  );
}

export function pageSubscriptionIds(
  db: Conn,
  f: { merchantId?: string | undefined; userId?: string | undefined; status?: string | undefined } & PageWindow,
): Promise<OwnedId[]> {
  return all(
    db,
    `SELECT id, merchant_id AS "merchantId" FROM subscriptions
     WHERE (@merchantId::text IS NULL OR merchant_id = @merchantId::text) AND (@userId::text IS NULL OR user_id = @userId::text)
       AND (@status::text IS NULL OR status = @status::text)
     ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT @limit OFFSET @offset`,
    {
      merchantId: f.merchantId ?? null,
      userId: f.userId ?? null,
      status: f.status ?? null,
      limit: f.limit + 1,
      offset: f.offset,
    },
  );
}

export function pageTransactionIds(
  db: Conn,
  f: { merchantId?: string | undefined; status?: number | undefined } & PageWindow,
): Promise<OwnedId[]> {
  return all(
    db,
    `SELECT id, merchant_id AS "merchantId" FROM transactions
     WHERE (@merchantId::text IS NULL OR merchant_id = @merchantId::text) AND (@status::int IS NULL OR status = @status::int)
     ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT @limit OFFSET @offset`,
    { merchantId: f.merchantId ?? null, status: f.status ?? null, limit: f.limit + 1, offset: f.offset },
  );
}

export function pageEventIds(
  db: Conn,
  f: { merchantId?: string | undefined; status?: string | undefined; subscriptionId?: string | undefined } & PageWindow,
): Promise<OwnedId[]> {
  return all(
    db,
    `SELECT id, merchant_id AS "merchantId" FROM outbox_events
     WHERE (@status::text IS NULL OR status = @status::text) AND (@merchantId::text IS NULL OR merchant_id = @merchantId::text)
       AND (@subscriptionId::text IS NULL OR subscription_id = @subscriptionId::text)
     ORDER BY seq DESC LIMIT @limit OFFSET @offset`,
    {
      merchantId: f.merchantId ?? null,
      status: f.status ?? null,
      subscriptionId: f.subscriptionId ?? null,
      limit: f.limit + 1,
      offset: f.offset,
    },
  );
}
