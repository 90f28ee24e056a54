import { z } from 'zod';
import type { Ctx } from '../app.js';
import { notFound, PaygateError, RESULT_CODES } from '../domain/errors.js';
import { optionalUrl, parseInput, requiredString } from '../domain/fields.js';
import { newId, randomToken } from '../domain/ids.js';
import { formatTime } from '../domain/time.js';
import { assertNotifyUrlAllowed } from '../notify/guard.js';
import {
  getMerchant,
  getMerchantByApiKey,
  insertMerchant,
  listMerchantRows,
  updateMerchantRow,
  type MerchantRow,
} from '../store/merchants.js';

/** The old secret keeps working this long after a rotation (SPEC §2). */
export const SECRET_GRACE_MS = 24 * 3600 * 1000;

const signatureVersion = z.union([z.literal(1), z.literal(2), z.literal('1'), z.literal('2')], {
  error: 'must be 1 or 2',
}).transform(Number);

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

/** A merchant as list/show render it: key and secret masked (SPEC §2). */
export interface MerchantView {
  merchantId: string;
  name: string;
  apiKey: string;
  secret: string;
  signatureVersion: number;
  notifyUrl?: string;
  status: string;
  createTime: string;
}

const mask = (text: string): string => `${text.slice(0, 8)}…${text.slice(-4)}`;

function view(ctx: Ctx, row: MerchantRow): MerchantView {
  return {
    merchantId: row.id,
    name: row.name,
    apiKey: mask(row.apiKey),
    secret: '********',
    signatureVersion: row.signatureVersion,
    ...(row.notifyUrl ? { notifyUrl: row.notifyUrl } : {}),
    status: row.status,
    createTime: formatTime(row.createdAt, ctx.zone),
  };
}

export function createMerchant(ctx: Ctx, input: unknown): MerchantCreated {
  const data = parseInput(createSchema, input);
  assertNotifyUrlAllowed(data.notifyUrl, ctx.config.callbackPrivate);
  const now = ctx.clock.now();
  const secret = `sk_${randomToken(24)}`;
  const row: MerchantRow = {
    id: newId('mer', now),
    name: data.name,
    apiKey: `ak_${randomToken(18)}`,
    secretEnc: ctx.vault.encrypt(secret),
    prevSecretEnc: null,
    prevSecretUntil: null,
    signatureVersion: data.signatureVersion ?? 2,
    notifyUrl: data.notifyUrl ?? null,
    status: 'ACTIVE',
    createdAt: now,
    updatedAt: now,
  };
  insertMerchant(ctx.db, row);
  return {
    merchantId: row.id,
    name: row.name,
    apiKey: row.apiKey,
    secret,
    signatureVersion: row.signatureVersion,
    ...(row.notifyUrl ? { notifyUrl: row.notifyUrl } : {}),
  };
}

export function listMerchants(ctx: Ctx): MerchantView[] {
  return listMerchantRows(ctx.db).map((r) => view(ctx, r));
}

export function requireMerchant(ctx: Ctx, id: string): MerchantRow {
  const row = getMerchant(ctx.db, id);
  if (!row) throw notFound('merchant');
  return row;
}

export function showMerchant(ctx: Ctx, id: string): MerchantView {
  return view(ctx, requireMerchant(ctx, id));
}

const updateSchema = z.object({
  notifyUrl: z.union([optionalUrl, z.literal('')]).optional(),
  signatureVersion: signatureVersion.optional(),
  status: z.enum(['ACTIVE', 'DISABLED']).optional(),
  name: requiredString(200).optional(),
});

export function updateMerchant(ctx: Ctx, id: string, input: unknown): MerchantView {
  const data = parseInput(updateSchema, input);
  assertNotifyUrlAllowed(data.notifyUrl, ctx.config.callbackPrivate);
  const row = requireMerchant(ctx, id);
  const patch: Partial<MerchantRow> = { updatedAt: ctx.clock.now() };
  if (data.name !== undefined) patch.name = data.name;
  if (data.signatureVersion !== undefined) patch.signatureVersion = data.signatureVersion;
  if (data.status !== undefined) patch.status = data.status;
  // An explicitly empty notify URL clears the merchant's default.
  if ('notifyUrl' in (input as object)) patch.notifyUrl = data.notifyUrl || null;
  updateMerchantRow(ctx.db, row.id, patch);
  return showMerchant(ctx, row.id);
}

export function rotateSecret(ctx: Ctx, id: string): { merchantId: string; secret: string; previousValidUntil: string } {
  const row = requireMerchant(ctx, id);
  const now = ctx.clock.now();
  const secret = `sk_${randomToken(24)}`;
  updateMerchantRow(ctx.db, row.id, {
    secretEnc: ctx.vault.encrypt(secret),
    prevSecretEnc: row.secretEnc,
    prevSecretUntil: now + SECRET_GRACE_MS,
    updatedAt: now,
  });
  return { merchantId: row.id, secret, previousValidUntil: formatTime(now + SECRET_GRACE_MS, ctx.zone) };
}

/** The secrets a request may be signed with now: the current one, and the previous one during its grace period. */
export function merchantSecrets(ctx: Ctx, row: MerchantRow): string[] {
  const secrets = [ctx.vault.decrypt(row.secretEnc)];
  if (row.prevSecretEnc && row.prevSecretUntil !== null && row.prevSecretUntil > ctx.clock.now()) {
    secrets.push(ctx.vault.decrypt(row.prevSecretEnc));
  }
  return secrets;
}

/** The merchant's current signing secret (callbacks, tracking response sign). */
export function currentSecret(ctx: Ctx, row: MerchantRow): string {
  return ctx.vault.decrypt(row.secretEnc);
}

/**
 * Authenticate an API caller (SPEC §3 order: 1003 before 1002). `apiKey` is given on payment
 * endpoints; subscription endpoints identify by merchantId alone.
 */
export function authenticateMerchant(ctx: Ctx, merchantId: unknown, apiKey?: string): MerchantRow {
  const refuse = () => new PaygateError(RESULT_CODES.UNKNOWN_MERCHANT, 'unknown or disabled merchant');
  if (typeof merchantId !== 'string' || merchantId === '') throw refuse();
  const row = apiKey !== undefined ? getMerchantByApiKey(ctx.db, apiKey) : getMerchant(ctx.db, merchantId);
  if (!row || row.id !== merchantId || row.status !== 'ACTIVE') throw refuse();
  return row;
}

/** `--merchant` may be left out when exactly one merchant exists (SPEC §12). */
export function defaultMerchantId(ctx: Ctx, given: string | undefined): string {
  if (given) return requireMerchant(ctx, given).id;
  const all = listMerchantRows(ctx.db);
  if (all.length === 1 && all[0]) return all[0].id;
  throw new PaygateError(
    RESULT_CODES.INVALID_PARAM,
    all.length === 0 ? 'merchant: no merchant exists yet; run `paygate merchant create --name NAME`' : 'merchant: --merchant is required when several merchants exist',
    'merchant',
  );
}
