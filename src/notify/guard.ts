import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Guard rails on callback targets (SPEC §8, §1 PAYGATE_CALLBACK_PRIVATE). A refused target is
 * permanent for the event (DEAD with the reason), not something a retry would fix.
 */

export const MAX_NOTIFY_URL_LENGTH = 500;

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

export function checkNotifyUrl(text: string): UrlCheck {
  if (text.length > MAX_NOTIFY_URL_LENGTH) return { ok: false, reason: `notifyUrl longer than ${MAX_NOTIFY_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'notifyUrl is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'notifyUrl must be http or https' };
  return { ok: true, url };
}

/** Loopback, private, link-local, CGNAT, unspecified and multicast ranges (v4, v6, v4-mapped v6). */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1]) return PRIVATE.check(mapped[1], 'ipv4');
    return PRIVATE.check(address, 'ipv6');
  }
  return true; // not an address at all: refuse rather than guess
}

/**
 * With PAYGATE_CALLBACK_PRIVATE=deny: resolve the host and refuse it when ANY address is private
 * (a name resolving to both would otherwise let the connection pick the private one). Returns the
 * reason, or undefined when the target is allowed. DNS failures are not refusals: the request
 * itself will fail and be retried.
 */
export async function privateTargetReason(url: URL): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      return undefined;
    }
  }
  const bad = addresses.find(isPrivateAddress);
  return bad === undefined ? undefined : `notifyUrl host ${host} resolves to a private address (${bad}); PAYGATE_CALLBACK_PRIVATE=deny`;
}
