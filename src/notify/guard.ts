import { isIP } from 'node:net';
import { invalidParam } from '../domain/errors.js';
import { addressRefusal, describeRefusal, type CallbackPrivateMode } from './address-policy.js';

/**
 * Guard rails on callback targets (SPEC §8, §1 PAYGATE_CALLBACK_PRIVATE). What the URL alone
 * tells (its scheme, length, a literal IP address, a `localhost` name) is checked when a
 * notifyUrl is accepted; at delivery the connector (connector.ts) checks the address actually
 * connected to, so a name is judged by what it resolves to at that moment.
 */

export const MAX_NOTIFY_URL_LENGTH = 500;

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

export function checkNotifyUrl(text: string): UrlCheck {
  if (text.length > MAX_NOTIFY_URL_LENGTH)
    return { ok: false, reason: `notifyUrl longer than ${MAX_NOTIFY_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'notifyUrl is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: 'notifyUrl must be http or https' };
  return { ok: true, url };
}

/**
 * Why the URL's literal IP host may not be called back under `mode` (undefined for names and
 * allowed addresses). The WHATWG parser has already turned numeric forms (`2852039166`,
 * `0251.0376.0251.0376`, `0xA9.0xFE.0xA9.0xFE`) into dotted decimal and IPv6 into its
 * compressed form, so a literal address is classified as what it is.
 */
export function literalHostRefusal(url: URL, mode: CallbackPrivateMode): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!isIP(host)) return undefined;
  const refusal = addressRefusal(host, mode);
  return refusal === undefined ? undefined : `host ${describeRefusal(refusal)}`;
}

/** RFC 6761: `localhost` and names under it are loopback, whatever a resolver says. */
const LOCALHOST_NAME = /(^|\.)localhost\.?$/i;

/** literalHostRefusal, and under deny a `localhost` name: what the URL alone tells. */
export function urlHostRefusal(url: URL, mode: CallbackPrivateMode): string | undefined {
  const literal = literalHostRefusal(url, mode);
  if (literal !== undefined) return literal;
  if (mode === 'deny' && LOCALHOST_NAME.test(url.hostname)) {
    return `host ${url.hostname} is a loopback name; PAYGATE_CALLBACK_PRIVATE=deny allows only global addresses`;
  }
  return undefined;
}

/**
 * The early check where a notifyUrl is accepted (merchant create/update, a transaction's or
 * subscription's notifyUrl): a target that could never be delivered to is a 1001 now rather
 * than a DEAD event later. Host names are not resolved here (no DNS in the request path).
 */
export function assertNotifyUrlAllowed(
  text: string | null | undefined,
  mode: CallbackPrivateMode,
  field = 'notifyUrl',
): void {
  if (!text) return;
  const checked = checkNotifyUrl(text);
  if (!checked.ok) return; // the field's own validation reports malformed URLs
  const reason = urlHostRefusal(checked.url, mode);
  if (reason !== undefined) throw invalidParam(field, reason);
}
