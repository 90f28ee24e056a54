import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Ctx } from '../../ctx.js';
import { notFound } from '../../domain/errors.js';
import { expireIfStale } from '../pages.js';
import { STATUS } from '../transactions/status.js';
import { openPortal, type OpenPortal } from './session.js';

/**
 * The way back to the portal after a card update's 3-D Secure challenge.
 *
 * The check's transaction row must hold a return URL (the 3DS page and Stripe's return lead
 * there, and a page without JavaScript has nothing else to follow), but the portal stores only
 * the SHA-256 of its token, so that a database copy opens nobody's portal. The URL therefore
 * carries the token sealed (AES-256-GCM under a key derived from the vault key, which is not in
 * the database) and bound to that one transaction (its id is the associated data):
 * `/portal/return/<transactionOrderId>/<sealed>`. A database alone cannot open it; the browser
 * that comes back is let back into its portal, and told what became of the card.
 *
 * Sealed: iv (12) ‖ tag (16) ‖ the token's 32 bytes, base64url — 80 characters, within the
 * router's 100 per path segment. A vault key rotation forgets the derived key: a challenge open
 * across one returns to "not found" (the link itself still works).
 */
const PURPOSE = 'portal-card-return';
const IV = 12;
const TAG = 16;

/** The return URL of a portal card check, for the transaction `transactionId`. */
export function cardReturnUrl(ctx: Ctx, token: string, transactionId: string): string {
  const plain = Buffer.from(token, 'base64url');
  // Portal tokens are base64url of random bytes; anything else could not be restored exactly.
  if (plain.toString('base64url') !== token) throw new Error('a portal token that is not base64url');
  const iv = randomBytes(IV);
  const cipher = createCipheriv('aes-256-gcm', ctx.vault.derive(PURPOSE), iv);
  cipher.setAAD(Buffer.from(transactionId, 'utf8'));
  const data = Buffer.concat([cipher.update(plain), cipher.final()]);
  const sealed = Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64url');
  return `${ctx.config.publicUrl}/portal/return/${encodeURIComponent(transactionId)}/${sealed}`;
}

function unseal(ctx: Ctx, transactionId: string, sealed: string): string | undefined {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length <= IV + TAG) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', ctx.vault.derive(PURPOSE), raw.subarray(0, IV));
    decipher.setAAD(Buffer.from(transactionId, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV, IV + TAG));
    return Buffer.concat([decipher.update(raw.subarray(IV + TAG)), decipher.final()]).toString('base64url');
  } catch {
    return undefined;
  }
}

/** What became of the card, read from its check's transaction (never from the query the pages add). */
export type CardCheckOutcome =
  | { result: 'updated' }
  | { result: 'failed'; failReason?: string }
  | { result: 'processing' }
  | { result: 'waiting' };

export interface CardReturn {
  token: string;
  portal: OpenPortal;
  card: CardCheckOutcome;
}

/**
 * The browser back from a portal card check's 3-D Secure: its portal (1007 for anything not
 * sealed by us for this transaction; PortalExpired after the link's hour) and the check's outcome.
 */
export async function returnToPortal(ctx: Ctx, transactionId: string, sealed: string): Promise<CardReturn> {
  const token = unseal(ctx, transactionId, sealed);
  if (token === undefined) throw notFound('page');
  const portal = await openPortal(ctx, token);
  const found = await ctx.store.getTransaction(transactionId);
  const ours =
    found?.paymentType === 'CARD_CHECK' &&
    found.merchantId === portal.merchant.id &&
    found.userId === portal.session.userId;
  if (!found || !ours) throw notFound('page');
  // A challenge left past its 30 minutes reads as what it is: expired, the card not taken.
  const row = await expireIfStale(ctx, found);
  const card: CardCheckOutcome =
    row.status === STATUS.SUCCEEDED
      ? { result: 'updated' }
      : row.status === STATUS.REQUIRES_3DS
        ? { result: 'waiting' }
        : row.status === STATUS.ACCEPTED
          ? { result: 'processing' }
          : { result: 'failed', ...(row.failReason ? { failReason: row.failReason } : {}) };
  return { token, portal, card };
}
