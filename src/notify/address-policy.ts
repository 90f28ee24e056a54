import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { withArticle } from '../domain/words.js';

/**
 * Which IP addresses a callback may connect to (PAYGATE_CALLBACK_PRIVATE). Ranges come from
 * ipaddr.js rather than a hand-kept list: the hand-kept one missed IPv4-compatible (::7f00:1),
 * NAT64 (64:ff9b::a9fe:a9fe) and IPv4-translated (::ffff:0:a9fe:a9fe) forms.
 *
 * - Always refused: link-local (169.254.0.0/16, fe80::/10) and cloud metadata addresses
 *   (fd00:ec2::254, 100.100.100.200), also when embedded in an IPv6 address.
 * - `deny`: additionally every address that is not global unicast, embedded forms included.
 */

export type CallbackPrivateMode = 'allow' | 'deny';

type Addr = ipaddr.IPv4 | ipaddr.IPv6;

const METADATA_V4 = ipaddr.IPv4.parse('100.100.100.200');
const METADATA_V6 = ipaddr.IPv6.parse('fd00:ec2::254');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/** ipaddr.js range names in words, for the reason recorded on the event. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  private: 'private',
  reserved: 'reserved',
  uniqueLocal: 'unique-local (fc00::/7)',
  deprecatedSiteLocal: 'site-local (fec0::/10)',
  rfc6052: 'local-use NAT64 (64:ff9b:1::/48)',
  '6to4': '6to4 (2002::/16)',
  teredo: 'Teredo (2001::/32)',
};

const v4 = (hi: number, lo: number): ipaddr.IPv4 => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

/**
 * The IPv4 addresses an IPv6 address carries and would reach through a translator or tunnel:
 * IPv4-mapped ::ffff:a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d, IPv4-compatible ::a.b.c.d,
 * NAT64 64:ff9b::a.b.c.d (and the local-use 64:ff9b:1::/48), 6to4 2002:AABB:CCDD::, and
 * Teredo's server and (inverted) client addresses.
 */
function embeddedIPv4(a: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = a.parts as [number, number, number, number, number, number, number, number];
  const last = v4(p[6], p[7]);
  const zeros = (n: number): boolean => p.slice(0, n).every((x) => x === 0);
  switch (a.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return [last];
    case '6to4':
      return [v4(p[1], p[2])];
    case 'teredo':
      return [v4(p[2], p[3]), v4(~p[6] & 0xffff, ~p[7] & 0xffff)];
    default:
      // IPv4-compatible (::/96, deprecated); :: and ::1 are themselves unspecified and loopback.
      return zeros(6) && !(p[6] === 0 && p[7] <= 1) ? [last] : [];
  }
}

function isAlwaysRefused(a: Addr): boolean {
  if (a.kind() === 'ipv4') return a.range() === 'linkLocal' || a.toString() === METADATA_V4.toString();
  const v6 = a as ipaddr.IPv6;
  return v6.range() === 'linkLocal' || v6.toNormalizedString() === METADATA_V6.toNormalizedString();
}

/** The range that makes an address non-global, or undefined for global unicast. */
function nonGlobalRange(a: Addr): string | undefined {
  const range = a.range();
  if (range === 'unicast') return undefined;
  // These IPv6 prefixes are only carriers: the embedded IPv4 address decides.
  if (range === 'ipv4Mapped' || range === 'rfc6145') return undefined;
  if (range === 'rfc6052' && a.kind() === 'ipv6' && (a as ipaddr.IPv6).match(NAT64_WELL_KNOWN)) return undefined;
  return RANGE_WORDS[range] ?? range;
}

/** A refused address: `address` as shown (with the IPv4 address it carries), `what` it is. */
export interface Refusal {
  address: string;
  what: string;
  /** Refused in every mode (link-local, cloud metadata), not only with deny. */
  always: boolean;
}

export function refusalText(r: Refusal): string {
  return `${r.what}; ${r.always ? 'callbacks never go there' : 'PAYGATE_CALLBACK_PRIVATE=deny allows only global addresses'}`;
}

/** "169.254.169.254 is a link-local or cloud metadata address; callbacks never go there". */
export const describeRefusal = (r: Refusal): string => `${r.address} is ${refusalText(r)}`;

/**
 * Whether a callback may connect to `address` under `mode`: undefined when it may. Anything that
 * is not a plain IP address (including ipaddr.js's lenient forms such as "0xA9FEA9FE") is
 * refused: callers pass resolved or URL-normalised addresses only.
 */
export function addressRefusal(address: string, mode: CallbackPrivateMode): Refusal | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIP(bare)) return { address, what: 'not an IP address', always: true };
  const addr = ipaddr.parse(bare);
  const carried = addr.kind() === 'ipv6' ? embeddedIPv4(addr as ipaddr.IPv6) : [];
  const shown = (a: Addr): string => (a === addr ? bare : `${bare} (carrying ${a.toString()})`);

  for (const a of [addr, ...carried]) {
    if (isAlwaysRefused(a)) return { address: shown(a), what: 'a link-local or cloud metadata address', always: true };
  }
  if (mode === 'deny') {
    for (const a of [addr, ...carried]) {
      const range = nonGlobalRange(a);
      if (range !== undefined) return { address: shown(a), what: `${withArticle(range)} address`, always: false };
    }
  }
  return undefined;
}
