import { z } from 'zod';
import type { Ctx } from '../ctx.js';
import { isHttpUrl, parseInput, wireForm } from '../domain/fields.js';
import { newId } from '../domain/ids.js';
import { trackingResponseSign } from '../domain/signature.js';
import type { MerchantRow, TransactionRow, Tx } from '../store/store.js';
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

/** One entry, judged alone (SPEC §5): its transaction, or undefined when it fails. */
async function judge(tx: Tx, merchantId: string, entry: unknown): Promise<Judged | undefined> {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return undefined;
  const e = entry as Record<string, unknown>;
  const orderId = str(e.orderId);
  const relationId = str(e.relationId);
  const trackingNo = str(e.trackingNo);
  const trackingChannel = str(e.trackingChannel);
  const trackUrl = e.trackUrl === undefined || e.trackUrl === null || e.trackUrl === '' ? null : e.trackUrl;
  if (!orderId && !relationId) return undefined;
  if (!trackingNo || trackingNo.length > 100 || !trackingChannel || trackingChannel.length > 100) return undefined;
  if (trackUrl !== null && (typeof trackUrl !== 'string' || trackUrl.length > 500 || !isHttpUrl(trackUrl))) return undefined;
  // Another merchant's transaction reads as absent; when both ids are sent they must agree.
  const byId = orderId ? await tx.getMerchantTransaction(merchantId, orderId) : undefined;
  const byRel = relationId ? await tx.getTransactionByRelation(merchantId, relationId) : undefined;
  if ((orderId && !byId) || (relationId && !byRel) || (byId && byRel && byId.id !== byRel.id)) return undefined;
  const txn = byId ?? byRel;
  return txn ? { txn, trackingNo, trackingChannel, trackUrl } : undefined;
}

function failedLabel(entry: unknown, index: number): string {
  const e = entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? (entry as Record<string, unknown>) : {};
  return str(e.orderId) ?? str(e.relationId) ?? `#${index}`;
}

/**
 * Tracking upload (SPEC §5): 1–500 entries (else 1001), each judged alone; entries for one order
 * accumulate, the same (order, trackingNo) again updates it. All successful entries are written in
 * one transaction.
 */
export async function uploadTracking(ctx: Ctx, merchant: MerchantRow, input: unknown): Promise<TrackingResult> {
  const { trackingList: entries } = parseInput(TRACKING_REQUEST, input);

  const now = ctx.clock.now();
  // Counted inside the unit of work, which may run more than once: start from zero each time.
  const data = await ctx.store.transaction(async (tx) => {
    const failedOrders: string[] = [];
    let successCount = 0;
    for (const [i, entry] of entries.entries()) {
      const ok = await judge(tx, merchant.id, entry);
      if (!ok) {
        failedOrders.push(failedLabel(entry, i));
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
    return { successCount, failedCount: failedOrders.length, failedOrders };
  });
  return { ...data, sign: trackingResponseSign(data, currentSecret(ctx.vault, merchant)) };
}
