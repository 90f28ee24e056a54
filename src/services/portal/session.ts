import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Ctx } from '../../ctx.js';
import { notFound } from '../../domain/errors.js';
import { optionalRedirectUrl, parseInput, requiredString } from '../../domain/fields.js';
import { randomToken } from '../../domain/ids.js';
import { formatTime } from '../../domain/time.js';
import { rowOf, type MerchantRow, type PortalSessionRow } from '../../store/store.js';

/** A portal link works this long after it was made (SPEC §18). */
export const PORTAL_TTL_MS = 60 * 60_000;

/** An expired link is remembered this long, so it says "expired" rather than "no such page". */
const EXPIRED_KEPT_MS = 24 * 60 * 60_000;

/** POST /portal/session and `paygate portal link`. */
export const PORTAL_SESSION_REQUEST = z.object({
  userId: requiredString(200),
  returnUrl: optionalRedirectUrl.meta({
    description: 'Where the portal’s “Back to the shop” link takes the user (your account page); no link without it',
  }),
});

export interface PortalLink {
  url: string;
  expireTime: string;
}

export const hashPortalToken = (token: string): string => createHash('sha256').update(token).digest('base64url');

/**
 * A new link to the customer portal for one user of one merchant: 32 random bytes, of which only
 * the hash is stored. Any user id is accepted — one with no subscriptions sees that it has none —
 * so the shop can link every account page to it without asking first.
 */
export async function createPortalSession(ctx: Ctx, merchantId: string, input: unknown): Promise<PortalLink> {
  const req = parseInput(PORTAL_SESSION_REQUEST, input);
  const now = ctx.clock.now();
  const token = randomToken(32);
  const row: PortalSessionRow = rowOf('portalSessions', {
    tokenHash: hashPortalToken(token),
    merchantId,
    userId: req.userId,
    returnUrl: req.returnUrl ?? null,
    expiresAt: now + PORTAL_TTL_MS,
    cardChecks: 0,
    createdAt: now,
  });
  await ctx.store.transaction(async (tx) => {
    await tx.deletePortalSessionsBefore(now - EXPIRED_KEPT_MS);
    await tx.insertPortalSession(row);
  });
  return { url: `${ctx.config.publicUrl}/portal/${token}`, expireTime: formatTime(row.expiresAt, ctx.zone) };
}

/** A link past its 60 minutes (not a PaygateError: the page says so and names the shop). */
export class PortalExpired extends Error {
  constructor(readonly merchantName: string) {
    super('this portal link has expired');
  }
}

export interface OpenPortal {
  session: PortalSessionRow;
  merchant: MerchantRow;
}

/** The session behind a token: 1007 unknown (or its merchant disabled), PortalExpired after its hour. */
export async function openPortal(ctx: Ctx, token: string): Promise<OpenPortal> {
  const session = token !== '' ? await ctx.store.getPortalSession(hashPortalToken(token)) : undefined;
  const merchant = session ? await ctx.store.getMerchant(session.merchantId) : undefined;
  if (!session || merchant?.status !== 'ACTIVE') throw notFound('page');
  if (session.expiresAt <= ctx.clock.now()) throw new PortalExpired(merchant.name);
  return { session, merchant };
}
