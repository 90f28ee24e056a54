import { z } from 'zod';
import type { Ctx } from '../ctx.js';
import { stripeApiUrlFrom } from '../channel/stripe/endpoint.js';
import { keyShapeError } from '../channel/stripe/key-shape.js';
import { invalidParam, notFound, PaygateError, RESULT_CODES } from '../domain/errors.js';
import { optionalUrl, parseInput, requiredString } from '../domain/fields.js';
import { newId, randomToken } from '../domain/ids.js';
import { DEFAULT_PORTAL_ACTIONS, parsePortalActions } from '../domain/portal-actions.js';
import { formatTime } from '../domain/time.js';
import { assertNotifyUrlAllowed } from '../notify/guard.js';
import { cachedMerchant, cachedMerchantByApiKey, forgetMerchants } from './merchant-cache.js';
import { rowOf, type MerchantRow } from '../store/store.js';
import {
  applySequenceMoves,
  identityFields,
  identityPatch,
  identityView,
  type MerchantIdentityView,
  NEW_MERCHANT_DOCUMENTS,
} from './merchant-identity.js';

/** The old secret keeps working this long after a rotation (SPEC §2). */
export const SECRET_GRACE_MS = 24 * 3600 * 1000;

const signatureVersion = z
  .union([z.literal(1), z.literal(2), z.literal('1'), z.literal('2')], {
    error: 'must be 1 or 2',
  })
  .transform(Number);

const createSchema = z.object({
  name: requiredString(200),
  signatureVersion: signatureVersion.optional(),
  notifyUrl: optionalUrl,
});

export interface MerchantCreated {
  merchantId: string;
  name: string;
  apiKey: string;
  secret: string;
  signatureVersion: number;
  notifyUrl?: string;
}

/** A merchant as list/show render it: key and secret masked (SPEC §2); its document identity (SPEC §17). */
export interface MerchantView extends MerchantIdentityView {
  merchantId: string;
  name: string;
  apiKey: string;
  secret: string;
  signatureVersion: number;
  notifyUrl?: string;
  status: string;
  /** sandbox or stripe (SPEC §13). */
  channel: string;
  /** What subscribers may do on the customer portal (SPEC §18), comma-separated; "none" for a read-only portal. */
  portalActions: string;
  /** Masked as Stripe masks keys: type prefix and last four characters. */
  stripeSecretKey?: string;
  stripeWebhookSecret?: string;
  createTime: string;
}

const mask = (text: string): string => `${text.slice(0, 8)}…${text.slice(-4)}`;

/** `sk_test_…abcd`, `rk_live_…abcd`, `whsec_…abcd`: enough to tell which key is set, nothing to use. */
export function maskStripeKey(key: string): string {
  const prefix = /^(?:(?:sk|rk|pk)_(?:test|live)_|whsec_)/.exec(key)?.[0] ?? '';
  return `${prefix}…${key.slice(-4)}`;
}

function view(ctx: Ctx, row: MerchantRow): MerchantView {
  return {
    merchantId: row.id,
    name: row.name,
    apiKey: mask(row.apiKey),
    secret: '********',
    signatureVersion: row.signatureVersion,
    ...(row.notifyUrl ? { notifyUrl: row.notifyUrl } : {}),
    status: row.status,
    channel: row.channel,
    portalActions: row.portalActions || 'none',
    ...(row.stripeSecretKeyEnc ? { stripeSecretKey: maskStripeKey(ctx.vault.decrypt(row.stripeSecretKeyEnc)) } : {}),
    ...(row.stripeWebhookSecretEnc
      ? { stripeWebhookSecret: maskStripeKey(ctx.vault.decrypt(row.stripeWebhookSecretEnc)) }
      : {}),
    ...identityView(row),
    createTime: formatTime(row.createdAt, ctx.zone),
  };
}

export async function createMerchant(ctx: Ctx, input: unknown): Promise<MerchantCreated> {
  const data = parseInput(createSchema, input);
  assertNotifyUrlAllowed(data.notifyUrl, ctx.config.callbackPrivate);
  const now = ctx.clock.now();
  const secret = `sk_${randomToken(24)}`;
  const row: MerchantRow = rowOf('merchants', {
    id: newId('mer', now),
    name: data.name,
    apiKey: newApiKey(),
    secretEnc: ctx.vault.encrypt(secret),
    signatureVersion: data.signatureVersion ?? 2,
    notifyUrl: data.notifyUrl ?? null,
    status: 'ACTIVE',
    channel: 'sandbox',
    ...NEW_MERCHANT_DOCUMENTS,
    portalActions: DEFAULT_PORTAL_ACTIONS,
    createdAt: now,
    updatedAt: now,
  });
  await ctx.store.transaction((tx) => tx.insertMerchant(row));
  return {
    merchantId: row.id,
    name: row.name,
    apiKey: row.apiKey,
    secret,
    signatureVersion: row.signatureVersion,
    ...(row.notifyUrl ? { notifyUrl: row.notifyUrl } : {}),
  };
}

export async function listMerchants(ctx: Ctx): Promise<MerchantView[]> {
  return (await ctx.store.listMerchants()).map((r) => view(ctx, r));
}

export async function requireMerchant(ctx: Ctx, id: string): Promise<MerchantRow> {
  const row = await ctx.store.getMerchant(id);
  if (!row) throw notFound('merchant');
  return row;
}

export async function showMerchant(ctx: Ctx, id: string): Promise<MerchantView> {
  return view(ctx, await requireMerchant(ctx, id));
}

const updateSchema = z.object({
  notifyUrl: z.union([optionalUrl, z.literal('')]).optional(),
  signatureVersion: signatureVersion.optional(),
  status: z.enum(['ACTIVE', 'DISABLED']).optional(),
  name: requiredString(200).optional(),
  channel: z.enum(['sandbox', 'stripe'], { error: 'must be sandbox or stripe' }).optional(),
  stripeSecretKey: requiredString(300).optional(),
  stripeWebhookSecret: requiredString(300)
    .refine((v) => /^whsec_[A-Za-z0-9+/=_-]{8,}$/.test(v), 'must be a webhook signing secret (whsec_…)')
    .optional(),
  portalActions: z.unknown().optional(),
  ...identityFields,
});

export async function updateMerchant(ctx: Ctx, id: string, input: unknown): Promise<MerchantView> {
  const data = parseInput(updateSchema, input);
  assertNotifyUrlAllowed(data.notifyUrl, ctx.config.callbackPrivate);
  const row = await requireMerchant(ctx, id);
  const identity = identityPatch(data);
  const patch: Partial<MerchantRow> = {
    updatedAt: ctx.clock.now(),
    ...identity.patch,
    ...(await stripePatch(ctx, row, data)),
  };
  if (data.name !== undefined) patch.name = data.name;
  if (data.signatureVersion !== undefined) patch.signatureVersion = data.signatureVersion;
  if (data.status !== undefined) patch.status = data.status;
  if (data.portalActions !== undefined) patch.portalActions = parsePortalActions(data.portalActions);
  // An explicitly empty notify URL clears the merchant's default.
  if ('notifyUrl' in (input as object)) patch.notifyUrl = data.notifyUrl || null;
  // A refused sequence move rolls the whole update back: nothing half-changed.
  await ctx.store.transaction(async (tx) => {
    await applySequenceMoves(tx, row.id, identity.moves);
    await tx.updateMerchant(row.id, patch);
  });
  forgetMerchants(ctx);
  return showMerchant(ctx, row.id);
}

/**
 * The channel settings of an update. A new Stripe key is checked with one call before anything is
 * stored: refused (with Stripe's reason) or unreachable, nothing at all changes. Switching back to
 * the sandbox keeps the keys, so switching to Stripe again needs none.
 */
async function stripePatch(
  ctx: Ctx,
  row: MerchantRow,
  data: {
    channel?: 'sandbox' | 'stripe' | undefined;
    stripeSecretKey?: string | undefined;
    stripeWebhookSecret?: string | undefined;
  },
): Promise<Partial<MerchantRow>> {
  const patch: Partial<MerchantRow> = {};
  if (data.stripeSecretKey !== undefined) {
    const shape = keyShapeError(data.stripeSecretKey);
    if (shape) throw invalidParam('stripeSecretKey', shape);
    // loaded on first use: a process that never sets a Stripe key never needs the client
    const { checkKey, createStripeClient } = await import('../channel/stripe/index.js');
    const check = await checkKey(
      createStripeClient({ secretKey: data.stripeSecretKey, apiUrl: stripeApiUrlFrom() }),
      data.stripeSecretKey,
    );
    if (!check.ok) {
      if (check.cause === 'unreachable')
        throw new PaygateError(RESULT_CODES.INTERNAL, `stripeSecretKey: ${check.message}`);
      throw invalidParam('stripeSecretKey', `${check.message}; nothing was changed`);
    }
    patch.stripeSecretKeyEnc = ctx.vault.encrypt(data.stripeSecretKey);
  }
  if (data.stripeWebhookSecret !== undefined)
    patch.stripeWebhookSecretEnc = ctx.vault.encrypt(data.stripeWebhookSecret);
  if (data.channel === 'stripe' && !patch.stripeSecretKeyEnc && !row.stripeSecretKeyEnc) {
    throw invalidParam('stripeSecretKey', 'is required to switch a merchant to the stripe channel');
  }
  if (data.channel !== undefined) patch.channel = data.channel;
  return patch;
}

/**
 * Replace a merchant's secret or apiKey: the previous one keeps working for SECRET_GRACE_MS, so
 * clients can move over. The row is read inside the unit of work, so the value kept as previous
 * is the one current at the rotation.
 */
async function rotate(
  ctx: Ctx,
  id: string,
  change: (current: MerchantRow, until: number) => Partial<Omit<MerchantRow, 'id'>>,
): Promise<{ merchantId: string; previousValidUntil: string }> {
  const now = ctx.clock.now();
  const row = await ctx.store.transaction(async (tx) => {
    const current = await tx.getMerchant(id);
    if (!current) throw notFound('merchant');
    await tx.updateMerchant(current.id, { ...change(current, now + SECRET_GRACE_MS), updatedAt: now });
    return current;
  });
  forgetMerchants(ctx);
  return { merchantId: row.id, previousValidUntil: formatTime(now + SECRET_GRACE_MS, ctx.zone) };
}

export async function rotateSecret(
  ctx: Ctx,
  id: string,
): Promise<{ merchantId: string; secret: string; previousValidUntil: string }> {
  const secret = `sk_${randomToken(24)}`;
  const secretEnc = ctx.vault.encrypt(secret);
  const r = await rotate(ctx, id, (current, until) => ({
    secretEnc,
    prevSecretEnc: current.secretEnc,
    prevSecretUntil: until,
  }));
  return { merchantId: r.merchantId, secret, previousValidUntil: r.previousValidUntil };
}

const newApiKey = (): string => `ak_${randomToken(18)}`;

/** A new apiKey; the old one keeps working 24 hours, like a rotated secret. */
export async function rotateApiKey(
  ctx: Ctx,
  id: string,
): Promise<{ merchantId: string; apiKey: string; previousValidUntil: string }> {
  const apiKey = newApiKey();
  const r = await rotate(ctx, id, (current, until) => ({ apiKey, prevApiKey: current.apiKey, prevApiKeyUntil: until }));
  return { merchantId: r.merchantId, apiKey, previousValidUntil: r.previousValidUntil };
}

/** The secrets a request may be signed with now: the current one, and the previous one during its grace period. */
export function merchantSecrets(ctx: Ctx, row: MerchantRow): string[] {
  const secrets = [ctx.vault.decrypt(row.secretEnc)];
  if (row.prevSecretEnc && row.prevSecretUntil !== null && row.prevSecretUntil > ctx.clock.now()) {
    secrets.push(ctx.vault.decrypt(row.prevSecretEnc));
  }
  return secrets;
}

/**
 * Authenticate an API caller (SPEC §3 order: 1003 before 1002). `apiKey` is given on payment
 * endpoints; subscription endpoints identify by merchantId alone.
 */
export async function authenticateMerchant(ctx: Ctx, merchantId: unknown, apiKey?: string): Promise<MerchantRow> {
  const refuse = () => new PaygateError(RESULT_CODES.UNKNOWN_MERCHANT, 'unknown or disabled merchant');
  if (typeof merchantId !== 'string' || merchantId === '') throw refuse();
  const row = apiKey !== undefined ? await cachedMerchantByApiKey(ctx, apiKey) : await cachedMerchant(ctx, merchantId);
  if (!row || row.id !== merchantId || row.status !== 'ACTIVE') throw refuse();
  // Found by its previous apiKey: valid only during the 24 hours after the rotation.
  if (
    apiKey !== undefined &&
    row.apiKey !== apiKey &&
    !(row.prevApiKeyUntil !== null && row.prevApiKeyUntil > ctx.clock.now())
  )
    throw refuse();
  return row;
}

/** `--merchant` may be left out when exactly one merchant exists (SPEC §12). */
export async function defaultMerchantId(ctx: Ctx, given: string | undefined): Promise<string> {
  if (given) return (await requireMerchant(ctx, given)).id;
  const all = await ctx.store.listMerchants();
  if (all.length === 1 && all[0]) return all[0].id;
  throw new PaygateError(
    RESULT_CODES.INVALID_PARAM,
    all.length === 0
      ? 'merchant: no merchant exists yet; run `paygate merchant create --name NAME`'
      : 'merchant: --merchant is required when several merchants exist',
    'merchant',
  );
}
