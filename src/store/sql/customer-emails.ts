import { newId } from '../../domain/ids.js';
import type {
  ClaimedEmail,
  CustomerEmailRow,
  EmailClaim,
  EmailFilter,
  EmailOutcome,
  ExpiringCard,
  ExpiringCardQuery,
  NewCustomerEmail,
} from '../store.js';
import { customerEmails } from '../tables/index.js';
import { prefixed, selectFrom } from '../tables/rows.js';
import type { Db } from './db.js';

/**
 * The customer email outbox (SPEC §17), one copy for both engines. Like callbacks, a claim is a
 * conditional write of a lease checked by its result, so any number of deliverers (serve
 * instances, renew runs) never send the same attempt twice. Due is judged on the claimer's
 * business clock (`now`), the lease on real time (`leaseNow`), as the callback outbox's.
 */

/**
 * Write an email in the unit of work of what it reports. Not written (undefined) when the
 * merchant has no emailFrom or its customer emails are off — one statement, no separate read of
 * the merchant — nor when an email with the same dedupe key exists already.
 */
export async function enqueueEmail(db: Db, e: NewCustomerEmail): Promise<string | undefined> {
  const { id, args } = emailArgs(e, '');
  const written = await db.run(emailInsertSql(''), args);
  return written === 1 ? id : undefined;
}

/**
 * The INSERT of an email from `@<p>…` parameters (emailArgs). In a CTE chain, `from` names the part
 * that gates it and `dedupeKey` / `details` may be expressions over it (a number the chain took).
 */
export function emailInsertSql(p: string, over: { from?: string; dedupeKey?: string; details?: string } = {}): string {
  return `INSERT INTO customer_emails (id, merchant_id, kind, recipient, subscription_id, transaction_id, record_id, dedupe_key,
       details, status, attempts, next_attempt_at, created_at)
     SELECT @${p}id, m.id, @${p}kind, @${p}recipient, @${p}subscriptionId, @${p}transactionId, @${p}recordId,
       ${over.dedupeKey ?? `@${p}dedupeKey`}, ${over.details ?? `@${p}details`}, 'PENDING', 0, @${p}now, @${p}now
     FROM merchants m${over.from ? `, ${over.from}` : ''}
     WHERE m.id = CAST(@${p}merchantId AS TEXT) AND m.email_from IS NOT NULL AND m.email_from <> '' AND m.customer_emails = 'on'
     ON CONFLICT (dedupe_key) DO NOTHING`;
}

/** An email's id and its parameters for emailInsertSql (under `p`). */
export function emailArgs(e: NewCustomerEmail, p: string): { id: string; args: Record<string, unknown> } {
  const id = newId('eml', e.now);
  const args = {
    id,
    merchantId: e.merchantId,
    kind: e.kind,
    recipient: e.recipient,
    subscriptionId: e.subscriptionId ?? null,
    transactionId: e.transactionId ?? null,
    recordId: e.recordId ?? null,
    dedupeKey: e.dedupeKey ?? null,
    details: JSON.stringify(e.details),
    now: e.now,
  };
  return { id, args: prefixed(p, args) };
}

const SELECT = selectFrom(customerEmails);

export function listEmails(db: Db, f: EmailFilter): Promise<CustomerEmailRow[]> {
  return db.all(
    `${SELECT}
     WHERE (CAST(@status AS TEXT) IS NULL OR status = CAST(@status AS TEXT))
       AND (CAST(@merchantId AS TEXT) IS NULL OR merchant_id = CAST(@merchantId AS TEXT))
     ORDER BY seq DESC LIMIT @limit OFFSET @offset`,
    { status: f.status ?? null, merchantId: f.merchantId ?? null, limit: f.limit, offset: f.offset },
  );
}

export function getEmail(db: Db, id: string): Promise<CustomerEmailRow | undefined> {
  return db.get(`${SELECT} WHERE id = @id`, { id });
}

const DUE = `SELECT id FROM customer_emails
  WHERE status = 'PENDING' AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until < @leaseNow)
  ORDER BY next_attempt_at, seq LIMIT @limit`;

const CLAIM = `UPDATE customer_emails SET lease_owner = @owner, lease_until = @leaseUntil
  WHERE id = @id AND status = 'PENDING' AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until < @leaseNow)`;

/** Claim up to `max` due emails for `owner`, oldest due first; rows another deliverer holds are passed over. */
export async function claimDueEmails(db: Db, c: EmailClaim): Promise<ClaimedEmail[]> {
  if (c.max <= 0) return [];
  const due = await db.all<{ id: string }>(`${DUE}${db.dialect.skipLocked}`, {
    now: c.now,
    leaseNow: c.leaseNow,
    limit: c.max,
  });
  const claimed: ClaimedEmail[] = [];
  for (const { id } of due) {
    if ((await db.run(CLAIM, { id, owner: c.owner, leaseUntil: c.leaseUntil, now: c.now, leaseNow: c.leaseNow })) !== 1)
      continue;
    const row = await getEmail(db, id);
    if (row) claimed.push(row);
  }
  return claimed;
}

/** Record an attempt and release the lease; false when the lease was lost (another deliverer's outcome stands). */
export async function finishEmailAttempt(db: Db, id: string, owner: string, o: EmailOutcome): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE customer_emails SET status = CAST(@status AS TEXT), attempts = @attempts,
         next_attempt_at = coalesce(CAST(@nextAttemptAt AS BIGINT), next_attempt_at), last_error = CAST(@error AS TEXT),
         sent_at = CASE WHEN CAST(@status AS TEXT) = 'SENT' THEN CAST(@now AS BIGINT) ELSE sent_at END,
         lease_owner = NULL, lease_until = NULL
       WHERE id = @id AND lease_owner = @owner AND status = 'PENDING'`,
      { id, owner, ...o },
    )) === 1
  );
}

/** A DEAD or SENT email back to PENDING, due at `now`, attempts and last error cleared. */
export async function requeueEmail(db: Db, id: string, now: number): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE customer_emails SET status = 'PENDING', attempts = 0, next_attempt_at = @now, last_error = NULL,
         sent_at = NULL, lease_owner = NULL, lease_until = NULL
       WHERE id = @id AND status IN ('DEAD', 'SENT')`,
      { id, now },
    )) === 1
  );
}

/**
 * PENDING renewals due in (now, until] of ACTIVE subscriptions with an email, whose merchant
 * sends customer emails, not yet warned about, with a card whose expiry month comes before
 * `expiryBefore` (year × 12 + month): the candidates for a card-expiring notice, in
 * (scheduled time, id) order after `after`. The caller decides by the card's expiry in the
 * configured zone which of them get one.
 */
export function expiringCardCandidates(db: Db, q: ExpiringCardQuery): Promise<ExpiringCard[]> {
  const id = db.dialect.bytewise('r.id');
  return db.all(
    `SELECT r.id AS "recordId", r.scheduled_time AS "renewalAt", r.amount, r.currency,
       s.id AS "subscriptionId", s.code AS "subscriptionCode", s.merchant_id AS "merchantId", s.email,
       p.name AS "planName", c.brand, c.last4, c.exp_month AS "expMonth", c.exp_year AS "expYear"
     FROM billing_records r
     JOIN subscriptions s ON s.id = r.subscription_id
     JOIN merchants m ON m.id = s.merchant_id
     JOIN cards c ON c.id = s.card_id
     JOIN plans p ON p.id = coalesce(r.plan_id, s.plan_id)
     WHERE r.status = 'PENDING' AND r.billing_type = 'RENEW' AND r.scheduled_time > @now AND r.scheduled_time <= @until
       AND (r.scheduled_time > @afterTime OR (r.scheduled_time = @afterTime AND ${id} > @afterId))
       AND c.exp_year * 12 + c.exp_month < @expiryBefore
       AND s.status = 'ACTIVE' AND s.email IS NOT NULL
       AND m.status = 'ACTIVE' AND m.email_from IS NOT NULL AND m.customer_emails = 'on'
       AND NOT EXISTS (SELECT 1 FROM customer_emails e WHERE e.dedupe_key = 'card-expiring:' || r.id)
     ORDER BY r.scheduled_time, ${id} LIMIT @limit`,
    { ...q },
  );
}

export async function setSubscriptionEmail(db: Db, id: string, email: string | null, now: number): Promise<void> {
  await db.run('UPDATE subscriptions SET email = @email, updated_at = @now WHERE id = @id', { id, email, now });
}
