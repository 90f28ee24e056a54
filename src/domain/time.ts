import { DateTime, IANAZone } from 'luxon';
import { invalidParam } from './errors.js';

/**
 * Time strings are `yyyy-MM-dd HH:mm:ss` in the configured zone (SPEC §1). Instants are
 * integer epoch milliseconds everywhere else. Pure: callers pass the instant and the zone.
 */
export const TIME_FORMAT = 'yyyy-MM-dd HH:mm:ss';
const TIME_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export function isValidZone(zone: string): boolean {
  return IANAZone.isValidZone(zone) || zone === 'UTC';
}

/**
 * Same result as luxon's `toFormat(TIME_FORMAT)` at a fraction of the cost: the zone's offset at
 * the instant (luxon's cached zone), then the shifted instant's UTC fields. Renewal runs and
 * callbacks format several times per charge, and luxon's token formatter dominated them.
 */
export function formatTime(ms: number, zone: string): string {
  const offsetMin = zone === 'UTC' ? 0 : IANAZone.create(zone).offset(ms);
  const d = new Date(ms + offsetMin * 60_000);
  const year = d.getUTCFullYear();
  if (year < 1000 || year > 9999) return DateTime.fromMillis(ms, { zone }).toFormat(TIME_FORMAT);
  return `${year}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** Wall-clock fields of an instant in a zone. */
export function wallTime(ms: number, zone: string): WallTime {
  const d = DateTime.fromMillis(ms, { zone });
  return { year: d.year, month: d.month, day: d.day, hour: d.hour, minute: d.minute, second: d.second };
}

function zoneOffsetMinutes(zone: string, ms: number): number {
  return IANAZone.create(zone).offset(ms);
}

/**
 * The instant of a local wall time. DST rules of SPEC §1: a time in a gap moves to the first
 * valid instant after it (the transition itself); a time that occurs twice is the earlier one.
 */
export function resolveWallTime(w: WallTime, zone: string): number {
  // setUTCFullYear, not Date.UTC, whose years 0–99 mean 1900–1999.
  const asUtc =
    new Date(0).setUTCFullYear(w.year, w.month - 1, w.day) + ((w.hour * 60 + w.minute) * 60 + w.second) * 1000;
  if (zone === 'UTC' || zone === 'Etc/UTC') return asUtc;
  const HOUR = 3_600_000;
  const offsets = new Set([
    zoneOffsetMinutes(zone, asUtc - 14 * HOUR),
    zoneOffsetMinutes(zone, asUtc),
    zoneOffsetMinutes(zone, asUtc + 14 * HOUR),
  ]);
  const valid: number[] = [];
  for (const off of offsets) {
    const instant = asUtc - off * 60_000;
    if (zoneOffsetMinutes(zone, instant) === off) valid.push(instant);
  }
  if (valid.length > 0) return Math.min(...valid);
  // In a gap: the transition lies between the two candidate instants; find it by bisection.
  const candidates = [...offsets].map((off) => asUtc - off * 60_000);
  let lo = Math.min(...candidates);
  let hi = Math.max(...candidates);
  const loOff = zoneOffsetMinutes(zone, lo);
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (zoneOffsetMinutes(zone, mid) === loOff) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Parse a `yyyy-MM-dd HH:mm:ss` string in `zone`. Throws 1001 naming the field. */
export function parseTime(text: string, zone: string, field = 'time'): number {
  const m = TIME_RE.exec(text.trim());
  if (!m) throw invalidParam(field, `must be "yyyy-MM-dd HH:mm:ss"`);
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const check = DateTime.fromObject({ year, month, day, hour: 12 }, { zone: 'utc' });
  if (!check.isValid || check.day !== day || hour > 23 || minute > 59 || second > 59) {
    throw invalidParam(field, `${text} is not a real date and time`);
  }
  return resolveWallTime({ year, month, day, hour, minute, second }, zone);
}
