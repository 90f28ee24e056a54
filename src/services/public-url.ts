import type { Ctx } from '../ctx.js';
import { invalidParam } from '../domain/errors.js';

/**
 * The public base URL of checkout and 3DS links, kept in the database so that every process —
 * `serve`, a `paygate pay --checkout` on the same machine, another instance — builds the same
 * links. PAYGATE_PUBLIC_URL (or `serve --public-url`) beats the stored value; without either, the
 * links use serve's own address.
 */
export const PUBLIC_URL_META_KEY = 'public_url';
const META_KEY = PUBLIC_URL_META_KEY;

/** An http(s) base URL without query or fragment, trailing slashes dropped. */
export function normalisePublicUrl(text: string, field = 'public-url'): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw invalidParam(
      field,
      `must be an http or https URL such as https://pay.example.com, not ${JSON.stringify(text)}`,
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw invalidParam(field, 'must start with http:// or https://');
  if (u.search || u.hash || u.username || u.password)
    throw invalidParam(field, 'must not carry a query, a fragment or credentials');
  return u.href.replace(/\/+$/, '');
}

export async function storedPublicUrl(ctx: Ctx): Promise<string | undefined> {
  return ctx.store.getMeta(META_KEY);
}

/** Record the public URL for every process; returns the normalised value. */
export async function setPublicUrl(ctx: Ctx, text: string): Promise<string> {
  const url = normalisePublicUrl(text);
  await ctx.store.transaction((tx) => tx.setMeta(META_KEY, url));
  ctx.config.publicUrl = url;
  return url;
}

export async function unsetPublicUrl(ctx: Ctx): Promise<void> {
  await ctx.store.transaction((tx) => tx.deleteMeta(META_KEY));
}
