import { z } from 'zod';
import type { Ctx } from '../ctx.js';
import { isHttpUrl, parseInput, wireForm } from '../domain/fields.js';
import { newId } from '../domain/ids.js';
import { trackingResponseSign } from '../domain/signature.js';
import { notFound } from '../domain/errors.js';
import { formatTime } from '../domain/time.js';
import type { MerchantRow, TrackingRow, TransactionRow, Tx } from '../store/store.js';
import { requestFingerprint, signatureKey } from '../vault/fingerprint.js';
import { currentSecret } from '../vault/secrets.js';

/** SERVICE.md tracking-upload response `data`; `sign` per SPEC §4. */
export interface TrackingResult {
  successCount: number;
  failedCount: number;
  failedOrders: string[];
  sign: string;
}

export const MAX_TRACKING_ENTRIES = 500;

/** A list sent as a JSON string (as some clients send the transaction's JSON fields) is read as the list. */
function listFromText(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

const ENTRY = { $ref: '#/components/schemas/TrackingEntry' };

/**
 * The request: only the list itself can make it a 1001; its entries are judged one by one and a
 * bad entry is reported in failedOrders, so the document types them without requiring anything.
 */
export const TRACKING_REQUEST = z.object({
  trackingList: wireForm(
    z.preprocess(
      listFromText,
      z
        .array(z.unknown(), { error: 'must be an array of tracking entries' })
        .min(1, `must have 1 to ${MAX_TRACKING_ENTRIES} entries`)
        .max(MAX_TRACKING_ENTRIES, `must have 1 to ${MAX_TRACKING_ENTRIES} entries`),
    ),
    {
      anyOf: [
        { type: 'array', minItems: 1, maxItems: MAX_TRACKING_ENTRIES, items: ENTRY },
        { type: 'string', contentMediaType: 'application/json', contentSchema: { type: 'array', items: ENTRY } },
      ],
    },
  ),
});

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

interface Judged {
  txn: TransactionRow;
  trackingNo: string;
  trackingChannel: string;
  trackUrl: string | null;
}

/** Why an entry failed, in words an operator can act on. */
type Refused = { reason: string };

/** One entry, judged alone (SPEC §5): its transaction, or why it fails. */
async function judge(tx: Tx, merchantId: string, entry: unknown): Promise<Judged | Refused> {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
    return { reason: 'the entry is not a JSON object' };
  const e = entry as Record<string, unknown>;
  const orderId = str(e.orderId);
  const relationId = str(e.relationId);
  const trackingNo = str(e.trackingNo);
  const trackingChannel = str(e.trackingChannel);
  const trackUrl = e.trackUrl === undefined || e.trackUrl === null || e.trackUrl === '' ? null : e.trackUrl;
  if (!orderId && !relationId) return { reason: 'neither orderId nor relationId is given' };
  if (!trackingNo) return { reason: 'trackingNo is missing' };
  if (trackingNo.length > 100) return { reason: 'trackingNo is longer than 100 characters' };
  if (!trackingChannel) return { reason: 'trackingChannel is missing' };
  if (trackingChannel.length > 100) return { reason: 'trackingChannel is longer than 100 characters' };
  if (trackUrl !== null && (typeof trackUrl !== 'string' || trackUrl.length > 500 || !isHttpUrl(trackUrl))) {
    return { reason: 'trackUrl must be an http or https URL of at most 500 characters' };
  }
  // Another merchant's transaction reads as absent; when both ids are sent they must agree.
  const byId = orderId ? await tx.getMerchantTransaction(merchantId, orderId) : undefined;
  const byRel = relationId ? await tx.getTransactionByRelation(merchantId, relationId) : undefined;
  if (orderId && !byId) return { reason: 'no transaction of this merchant has this orderId' };
  if (relationId && !byRel) return { reason: 'no transaction of this merchant has this relationId' };
  if (byId && byRel && byId.id !== byRel.id) return { reason: 'orderId and relationId name different transactions' };
  const txn = byId ?? byRel;
  return txn ? { txn, trackingNo, trackingChannel, trackUrl } : { reason: 'no such transaction' };
}

function failedLabel(entry: unknown, index: number): string {
  const e =
    entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? (entry as Record<string, unknown>) : {};
  return str(e.orderId) ?? str(e.relationId) ?? `#${index}`;
}

/** A failed entry and why: `entry` is its failedOrders label. */
export interface TrackingFailure {
  entry: string;
  reason: string;
}

/** How the caller authenticated the request: the API passes the signature, the CLI nothing. */
export interface TrackingOptions {
  /** The request's signature (v1 `sign`, v2 header hex): a replay of it answers the first result. */
  signature?: string;
}

/**
 * Tracking upload (SPEC §5) as the HTTP API answers it: `data` keeps the original four fields,
 * which its signature covers and merchants' verifiers expect; the reasons go to the operator's
 * CLI (uploadTrackingWithReasons).
 */
export async function uploadTracking(
  ctx: Ctx,
  merchant: MerchantRow,
  input: unknown,
  opts: TrackingOptions = {},
): Promise<TrackingResult> {
  return (await uploadTrackingWithReasons(ctx, merchant, input, opts)).result;
}

type Counts = Omit<TrackingResult, 'sign'>;

/**
 * 1–500 entries (else 1001), each judged alone; entries for one order accumulate, the same
 * (order, trackingNo) again updates it. All successful entries are written in one transaction.
 *
 * A signed upload is idempotent on its signature (SPEC §4 "Replays"): its counts are kept with the
 * signature's key in the same unit of work as the entries, and a replay answers them (signed with
 * the current secret) and writes nothing — a captured upload sent later cannot undo a newer
 * trackUrl. The reasons of a replay's failed entries are not kept: only the CLI shows reasons,
 * and its uploads carry no signature.
 */
export async function uploadTrackingWithReasons(
  ctx: Ctx,
  merchant: MerchantRow,
  input: unknown,
  opts: TrackingOptions = {},
): Promise<{ result: TrackingResult; failures: TrackingFailure[] }> {
  const { trackingList: entries } = parseInput(TRACKING_REQUEST, input);
  const replayKey = opts.signature ? signatureKey(ctx.vault, opts.signature) : undefined;

  const now = ctx.clock.now();
  // Counted inside the unit of work, which may run more than once: start from zero each time.
  const data = await ctx.store.transaction(async (tx): Promise<{ data: Counts; failures: TrackingFailure[] }> => {
    if (replayKey) {
      const seen = await tx.getIdempotency(merchant.id, 'tracking-signature', replayKey);
      if (seen) return { data: JSON.parse(seen.resourceId) as Counts, failures: [] };
    }
    const failedOrders: string[] = [];
    const failures: TrackingFailure[] = [];
    let successCount = 0;
    for (const [i, entry] of entries.entries()) {
      const ok = await judge(tx, merchant.id, entry);
      if ('reason' in ok) {
        failedOrders.push(failedLabel(entry, i));
        failures.push({ entry: failedLabel(entry, i), reason: ok.reason });
        continue;
      }
      await tx.upsertTracking({
        id: newId('trk', now),
        merchantId: merchant.id,
        transactionId: ok.txn.id,
        trackingNo: ok.trackingNo,
        trackingChannel: ok.trackingChannel,
        trackUrl: ok.trackUrl as string | null,
        now,
      });
      successCount++;
    }
    const counts: Counts = { successCount, failedCount: failedOrders.length, failedOrders };
    if (replayKey)
      await tx.insertIdempotency({
        merchantId: merchant.id,
        scope: 'tracking-signature',
        requestId: replayKey,
        requestHash: requestFingerprint(ctx.vault, input as Record<string, unknown>).stored,
        // An upload makes no single resource: what it answered is what a replay must answer.
        resourceId: JSON.stringify(counts),
        now,
      });
    return { data: counts, failures };
  });
  return {
    result: { ...data.data, sign: trackingResponseSign(data.data, currentSecret(ctx.vault, merchant)) },
    failures: data.failures,
  };
}

/** An uploaded tracking entry, read back (`paygate tracking list|show`). */
export interface TrackingView {
  transactionOrderId: string;
  relationId?: string;
  trackingNo: string;
  trackingChannel: string;
  trackUrl?: string;
  merchantId: string;
  uploadTime: string;
  updateTime: string;
}

function trackingView(ctx: Ctx, r: TrackingRow): TrackingView {
  return {
    transactionOrderId: r.transactionId,
    ...(r.relationId ? { relationId: r.relationId } : {}),
    trackingNo: r.trackingNo,
    trackingChannel: r.trackingChannel,
    ...(r.trackUrl ? { trackUrl: r.trackUrl } : {}),
    merchantId: r.merchantId,
    uploadTime: formatTime(r.createdAt, ctx.zone),
    updateTime: formatTime(r.updatedAt, ctx.zone),
  };
}

/** Tracking entries, newest first, every merchant's or one's. */
export async function listTracking(
  ctx: Ctx,
  f: { merchantId?: string | undefined; limit: number; offset: number },
): Promise<TrackingView[]> {
  return (await ctx.store.listTracking(f)).map((r) => trackingView(ctx, r));
}

/** The entries of one transaction (split shipments: several), by its id; 1007 when it has none. */
export async function showTracking(ctx: Ctx, transactionId: string): Promise<TrackingView[]> {
  const txn = await ctx.store.getTransaction(transactionId);
  if (!txn) throw notFound('transaction');
  return (await ctx.store.listTracking({ transactionId, limit: 1000, offset: 0 })).map((r) => trackingView(ctx, r));
}
