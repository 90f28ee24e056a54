import type { OwnedId, PageWindow } from '../store.js';
import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';

/**
 * The operator's queries: which merchant owns an object named by its id (ids and subscription
 * codes are unique across merchants), and pages of ids for the CLI's lists across merchants.
 * The rows themselves are read through the usual per-object functions.
 */

export function planOwner(sqlite: Sqlite, planId: string): string | undefined {
  return (prepared(sqlite, 'SELECT merchant_id AS m FROM plans WHERE id = ?').get(planId) as { m: string } | undefined)
    ?.m;
}

/** A subscription by its id or its code. */
export function subscriptionOwner(
  sqlite: Sqlite,
  idOrCode: string,
): { id: string; code: string; merchantId: string } | undefined {
  return prepared(
    sqlite,
    'SELECT id, code, merchant_id AS merchantId FROM subscriptions WHERE id = @ref OR code = @ref LIMIT 1',
  ).get({ ref: idOrCode }) as { id: string; code: string; merchantId: string } | undefined;
}

export function transactionOwner(sqlite: Sqlite, id: string): string | undefined {
  return (
    prepared(sqlite, 'SELECT merchant_id AS m FROM transactions WHERE id = ?').get(id) as { m: string } | undefined
  )?.m;
}

const ids = (rows: unknown[]): OwnedId[] => rows as OwnedId[];

/** Newest first; one more than `limit` so the caller knows whether another page follows. */
export function pagePlanIds(
  sqlite: Sqlite,
  f: { merchantId?: string | undefined; status?: string | undefined } & PageWindow,
): OwnedId[] {
  return ids(
    prepared(
      sqlite,
      `SELECT id, merchant_id AS merchantId FROM plans WHERE (@merchantId IS NULL OR merchant_id = @merchantId) AND (@status IS NULL OR status = @status)
       ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
    ).all({ merchantId: f.merchantId ?? null, status: f.status ?? null, limit: f.limit + 1, offset: f.offset }),
  );
}

export function pageSubscriptionIds(
  sqlite: Sqlite,
  f: { merchantId?: string | undefined; userId?: string | undefined; status?: string | undefined } & PageWindow,
): OwnedId[] {
  return ids(
    prepared(
      sqlite,
      `SELECT id, merchant_id AS merchantId FROM subscriptions
       WHERE (@merchantId IS NULL OR merchant_id = @merchantId) AND (@userId IS NULL OR user_id = @userId) AND (@status IS NULL OR status = @status)
       ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
    ).all({
      merchantId: f.merchantId ?? null,
      userId: f.userId ?? null,
      status: f.status ?? null,
      limit: f.limit + 1,
      offset: f.offset,
    }),
  );
}

export function pageTransactionIds(
  sqlite: Sqlite,
  f: { merchantId?: string | undefined; status?: number | undefined } & PageWindow,
): OwnedId[] {
  return ids(
    prepared(
      sqlite,
      `SELECT id, merchant_id AS merchantId FROM transactions WHERE (@merchantId IS NULL OR merchant_id = @merchantId) AND (@status IS NULL OR status = @status)
       ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
    ).all({ merchantId: f.merchantId ?? null, status: f.status ?? null, limit: f.limit + 1, offset: f.offset }),
  );
}

export function pageEventIds(
  sqlite: Sqlite,
  f: { merchantId?: string | undefined; status?: string | undefined; subscriptionId?: string | undefined } & PageWindow,
): OwnedId[] {
  return ids(
    prepared(
      sqlite,
      `SELECT id, merchant_id AS merchantId FROM outbox_events
       WHERE (@status IS NULL OR status = @status) AND (@merchantId IS NULL OR merchant_id = @merchantId)
         AND (@subscriptionId IS NULL OR subscription_id = @subscriptionId)
       ORDER BY seq DESC LIMIT @limit OFFSET @offset`,
    ).all({
      merchantId: f.merchantId ?? null,
      status: f.status ?? null,
      subscriptionId: f.subscriptionId ?? null,
      limit: f.limit + 1,
      offset: f.offset,
    }),
  );
}
