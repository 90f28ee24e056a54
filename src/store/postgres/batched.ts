import type { NewCustomerEmail, NewInvoice, SandboxChargeRow, SubscriptionRow } from '../store.js';
import { issueInvoice, issueInvoicesPgSql } from '../sql/documents.js';
import { emailArgs, enqueueEmail } from '../sql/customer-emails.js';
import { insertEvent } from '../sql/outbox.js';
import { settleFirstRecord } from '../sql/records.js';
import { insertSandboxCharge } from '../sql/sandbox.js';
import {
  addChargeToSubscription,
  getSubscriptionById,
  INSERT_PENDING_RECORD,
  type PendingRecordArgs,
} from '../sql/subscriptions.js';
import { finishRenewalTransaction } from '../sql/transactions.js';
import { type ColumnKind, sqlName } from '../tables/define.js';
import { sandboxCharges, subscriptions } from '../tables/index.js';
import { selectList } from '../tables/rows.js';
import type { Batchable } from './coalesce.js';
import { all, type Conn, pgDb } from './query.js';

/**
 * The renewal outcome's statements as Batchable (coalesce.ts): alone, each is the statement both
 * engines share (or the engine's own, renewals.ts); asked together by a batch's outcomes, one
 * multi-row statement over the rows as one JSON recordset.
 */

/**
 * `json_to_recordset(…) AS alias(…)`: the callers' rows, sent as ONE JSON text parameter. Not an
 * array parameter per column: node-postgres escapes each element of an array in JavaScript, which
 * took 8% of a renewal run's CPU (BENCHMARKS.md); JSON.stringify and PostgreSQL's JSON parser are
 * native. Columns are the rows' own keys (quoted: camelCase), with their SQL types.
 */
function rows(alias: string, columns: Record<string, string>): string {
  const defs = Object.entries(columns).map(([k, type]) => `"${k}" ${type}`);
  return `json_to_recordset(CAST(@rows AS json)) AS ${alias}(${defs.join(', ')})`;
}

/**
 * The rows as `@rows`. JSON writes a number that is not finite as null, where an array parameter
 * would have been refused: refused here too, so no NaN is ever written as "no value".
 */
function json(rs: readonly object[]): { rows: string } {
  // for…in, not Object.values: no array per row (this runs for every row of a renewal batch).
  for (const r of rs)
    for (const k in r) {
      const v = (r as Record<string, unknown>)[k];
      if (typeof v === 'number' && !Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
    }
  return { rows: JSON.stringify(rs) };
}

/** Writes `rs` with `sql`; which of them it wrote, by the ids its `RETURNING id` gives. */
async function writtenIds(conn: Conn, sql: string, rs: readonly object[]): Promise<Set<string>> {
  return new Set((await all<{ id: string }>(conn, sql, json(rs))).map((r) => r.id));
}

/** Writes `rs` with `sql`, whose callers want no answer but its success. */
async function writeRows(conn: Conn, sql: string, rs: readonly object[]): Promise<undefined[]> {
  await all(conn, sql, json(rs));
  return rs.map(() => undefined);
}

export interface Settle {
  id: string;
  status: 'SUCCESS' | 'FAILED' | 'CANCELLED';
  failReason: string | null;
  now: number;
}

const SETTLE = `UPDATE billing_records r SET status = v.status, fail_reason = v."failReason", actual_time = v.now,
    lease_owner = NULL, lease_until = NULL
  FROM ${rows('v', { id: 'text', status: 'text', failReason: 'text', now: 'bigint' })}
  WHERE r.id = v.id AND r.status = 'PENDING'
  RETURNING r.id`;

/** Tx.settleRecord: the record's outcome, and the run's claim on it ended; false when already settled. */
export const settleRecord: Batchable<Settle, boolean> = {
  key: (s) => s.id,
  one: (conn, s) => settleFirstRecord(pgDb(conn), s.id, s.status, s.failReason, s.now, 'release'),
  async many(conn, ss) {
    const ids = await writtenIds(conn, SETTLE, ss);
    return ss.map((s) => ids.has(s.id));
  },
};

export interface Finish {
  id: string;
  approved: boolean;
  failReason: string | null;
  channelRef: string | null;
  now: number;
}

const FINISH = `UPDATE transactions t SET status = CASE WHEN v.approved THEN 200000 ELSE 300000 END,
    fail_reason = v."failReason", channel_ref = coalesce(v."channelRef", t.channel_ref),
    txn_amount = CASE WHEN v.approved THEN t.amount ELSE t.txn_amount END,
    txn_currency = CASE WHEN v.approved THEN t.currency ELSE t.txn_currency END,
    txn_time = v.now, updated_at = v.now
  FROM ${rows('v', { id: 'text', approved: 'boolean', failReason: 'text', channelRef: 'text', now: 'bigint' })}
  WHERE t.id = v.id`;

/** Tx.finishRenewalTransaction. */
export const finishTransaction: Batchable<Finish, void> = {
  key: (f) => f.id,
  writesTransactions: true,
  one: (conn, { id, ...r }) => finishRenewalTransaction(pgDb(conn), id, r),
  many: (conn, fs) => writeRows(conn, FINISH, fs),
};

export interface Charge {
  id: string;
  approved: boolean;
  amount: number;
  paidThrough: number | null;
  now: number;
}

const ADD_CHARGE = `UPDATE subscriptions s SET billing_count = s.billing_count + CASE WHEN v.approved THEN 1 ELSE 0 END,
    failed_count = s.failed_count + CASE WHEN v.approved THEN 0 ELSE 1 END,
    total_paid = s.total_paid + CASE WHEN v.approved THEN v.amount ELSE 0 END,
    paid_through = CASE WHEN v.approved AND v."paidThrough" IS NOT NULL
                        THEN greatest(coalesce(s.paid_through, 0), v."paidThrough") ELSE s.paid_through END,
    updated_at = v.now
  FROM ${rows('v', { id: 'text', approved: 'boolean', amount: 'bigint', paidThrough: 'bigint', now: 'bigint' })}
  WHERE s.id = v.id`;

/** Tx.addChargeToSubscription: the counters, and how far it is paid. */
export const addCharge: Batchable<Charge, void> = {
  key: (c) => c.id,
  one: (conn, { id, ...c }) => addChargeToSubscription(pgDb(conn), id, c),
  many: (conn, cs) => writeRows(conn, ADD_CHARGE, cs),
};

const SUBSCRIPTIONS = `SELECT ${selectList(subscriptions, 's')} FROM subscriptions s WHERE s.id = ANY(@ids::text[])`;

/** Tx.getSubscriptionById. */
export const readSubscription: Batchable<string, SubscriptionRow | undefined> = {
  one: (conn, id) => getSubscriptionById(pgDb(conn), id),
  async many(conn, ids) {
    const found = await all<SubscriptionRow>(conn, SUBSCRIPTIONS, { ids: [...new Set(ids)] });
    const byId = new Map(found.map((r) => [r.id, r]));
    // Each caller its own copy, as a read of its own would give it.
    return ids.map((id) => {
      const r = byId.get(id);
      return r && { ...r };
    });
  },
};

const INSERT_RECORDS = `INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency,
    scheduled_time, status, retry_count, cycle_index, credit_applied, plan_id, coupon_code, discount_amount, created_at)
  SELECT v.id, v."subscriptionId", v."merchantId", v."billingType", v.amount, v.currency, v."scheduledTime", 'PENDING',
    v."retryCount", v."cycleIndex", v."creditApplied", v."planId", v."couponCode", v."discountAmount", v.now
  FROM ${rows('v', {
    id: 'text',
    subscriptionId: 'text',
    merchantId: 'text',
    billingType: 'text',
    amount: 'bigint',
    currency: 'text',
    scheduledTime: 'bigint',
    retryCount: 'integer',
    cycleIndex: 'integer',
    creditApplied: 'bigint',
    planId: 'text',
    couponCode: 'text',
    discountAmount: 'bigint',
    now: 'bigint',
  })}`;

/** Tx.insertPendingRecord (its id made by the caller: sql/subscriptions.ts pendingRecordArgs). */
export const insertPendingRecord: Batchable<PendingRecordArgs, void> = {
  async one(conn, r) {
    await all(conn, INSERT_PENDING_RECORD, { ...r });
  },
  many: (conn, rs) => writeRows(conn, INSERT_RECORDS, rs),
};

/** An event's parameters (sql/outbox.ts eventArgs, no prefix). */
export type EventArgs = Record<string, unknown> & { id: string };

const INSERT_EVENTS = `INSERT INTO outbox_events (id, merchant_id, kind, event_type, transaction_id, subscription_id,
    notify_url, payload, status, attempts, next_attempt_at, created_at)
  SELECT v.id, v."merchantId", v.kind, v."eventType", v."transactionId", v."subscriptionId", v."notifyUrl", v.payload,
    'PENDING', 0, v.now, v.now
  FROM ${rows('v', {
    id: 'text',
    merchantId: 'text',
    kind: 'text',
    eventType: 'text',
    transactionId: 'text',
    subscriptionId: 'text',
    notifyUrl: 'text',
    payload: 'text',
    now: 'bigint',
  })}
  WHERE v."notifyUrl" IS NOT NULL
    OR EXISTS (SELECT 1 FROM merchants m WHERE m.id = v."merchantId" AND m.notify_url IS NOT NULL)
  RETURNING id`;

/** Tx.enqueueEvent: true when written (it has somewhere to go). */
export const insertEvents: Batchable<EventArgs, boolean> = {
  one: (conn, args) => insertEvent(pgDb(conn), args),
  async many(conn, es) {
    const ids = await writtenIds(conn, INSERT_EVENTS, es);
    return es.map((e) => ids.has(e.id));
  },
};

const ISSUE_INVOICES = issueInvoicesPgSql(
  rows('v', {
    id: 'text',
    token: 'text',
    transactionId: 'text',
    subscriptionId: 'text',
    userId: 'text',
    currency: 'text',
    total: 'bigint',
    issuedAt: 'bigint',
    customer: 'text',
    document: 'text',
    ord: 'integer',
  }),
);

const INSERT_EMAILS = `INSERT INTO customer_emails (id, merchant_id, kind, recipient, subscription_id, transaction_id,
    record_id, dedupe_key, details, status, attempts, next_attempt_at, created_at)
  SELECT v.id, m.id, v.kind, v.recipient, v."subscriptionId", v."transactionId", v."recordId", v."dedupeKey", v.details,
    'PENDING', 0, v.now, v.now
  FROM ${rows('v', {
    id: 'text',
    merchantId: 'text',
    kind: 'text',
    recipient: 'text',
    subscriptionId: 'text',
    transactionId: 'text',
    recordId: 'text',
    dedupeKey: 'text',
    details: 'text',
    now: 'bigint',
  })} JOIN merchants m ON m.id = v."merchantId"
  WHERE m.email_from IS NOT NULL AND m.email_from <> '' AND m.customer_emails = 'on'
  ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`;

/**
 * Tx.enqueueEmail: the email's id, or undefined when not written (the merchant sends no customer
 * emails, or one with its dedupe key exists).
 */
export const enqueueEmails: Batchable<NewCustomerEmail, string | undefined> = {
  key: (e) => e.dedupeKey ?? undefined,
  one: (conn, e) => enqueueEmail(pgDb(conn), e),
  async many(conn, es) {
    const asked = es.map((e) => emailArgs(e, '').args);
    const ids = await writtenIds(conn, INSERT_EMAILS, asked);
    return asked.map((a) => (ids.has(a.id as string) ? (a.id as string) : undefined));
  },
};

/**
 * Tx.issueInvoice: the number, or undefined when the merchant does not exist. Together: one
 * statement per merchant, in the order their invoices were asked for (a renewal batch asks in
 * merchant order: services/renew/record-batch.ts), each taking its numbers in the order asked.
 */
export const issueInvoices: Batchable<NewInvoice, string | undefined> = {
  one: (conn, inv) => issueInvoice(pgDb(conn), inv),
  async many(conn, invs) {
    const byMerchant = new Map<string, NewInvoice[]>();
    for (const inv of invs) {
      const list = byMerchant.get(inv.merchantId);
      if (list) list.push(inv);
      else byMerchant.set(inv.merchantId, [inv]);
    }
    // Every merchant's statement sent before any answer is awaited (they keep their place in order).
    const answers = [...byMerchant].map(([merchantId, list]) =>
      all<{ id: string; number: string }>(conn, ISSUE_INVOICES, {
        merchantId,
        count: list.length,
        ...json(list.map((inv, ord) => ({ ...inv, ord }))),
      }),
    );
    const numbers = new Map((await Promise.all(answers)).flat().map((r) => [r.id, r.number]));
    return invs.map((inv) => numbers.get(inv.id));
  },
};

/** A column's PostgreSQL type, as store/schema/postgres.ts declares it. */
const PG_TYPE: Record<ColumnKind, string> = {
  text: 'text',
  integer: 'integer',
  money: 'bigint',
  instant: 'bigint',
  boolean: 'boolean',
  serial: 'bigint',
  instants: 'bigint[]',
};

const INSERT_SANDBOX_CHARGES = `INSERT INTO sandbox_charges (${Object.keys(sandboxCharges.columns).map(sqlName).join(', ')})
  SELECT ${Object.keys(sandboxCharges.columns)
    .map((k) => `v."${k}"`)
    .join(', ')}
  FROM ${rows('v', Object.fromEntries(Object.entries(sandboxCharges.columns).map(([k, c]) => [k, PG_TYPE[c.spec.kind]])))}
  ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`;

/** Tx.insertSandboxCharge: whether inserted (false: its idempotency key was taken first). */
export const insertSandboxCharges: Batchable<SandboxChargeRow, boolean> = {
  key: (r) => r.idempotencyKey,
  one: (conn, r) => insertSandboxCharge(pgDb(conn), r),
  async many(conn, rs) {
    const ids = await writtenIds(conn, INSERT_SANDBOX_CHARGES, rs);
    return rs.map((r) => ids.has(r.id));
  },
};
