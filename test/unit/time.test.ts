import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { formatTime, parseTime } from '../../src/domain/time.js';

describe('time strings in the configured zone', () => {
  const instant = Date.UTC(2026, 6, 1, 12, 0, 0);

  it('formats yyyy-MM-dd HH:mm:ss in UTC', async () => {
    expect(formatTime(instant, 'UTC')).toBe('2026-07-01 12:00:00');
  });

  it('formats in another zone with its summer offset', async () => {
    expect(formatTime(instant, 'America/New_York')).toBe('2026-07-01 08:00:00');
    expect(formatTime(instant, 'Asia/Tokyo')).toBe('2026-07-01 21:00:00');
  });

  it('formats exactly as luxon does, across DST changes and odd offsets', async () => {
    const zones = [
      'UTC',
      'America/New_York',
      'Europe/London',
      'Asia/Kolkata',
      'Asia/Kathmandu',
      'Australia/Lord_Howe',
      'Pacific/Chatham',
      'America/St_Johns',
    ];
    const edges = [
      Date.UTC(2026, 2, 8, 6, 59, 59),
      Date.UTC(2026, 2, 8, 7, 0, 0),
      Date.UTC(2026, 10, 1, 5, 59, 59),
      Date.UTC(2026, 10, 1, 6, 0, 0),
    ];
    const instants = [
      ...edges,
      0,
      -1,
      1_999,
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      Date.UTC(2099, 11, 31, 23, 59, 59, 999),
    ];
    for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 3_600_000 * 7 + 1_234) instants.push(t);
    for (const zone of zones) {
      for (const t of instants)
        expect(formatTime(t, zone), `${zone} ${t}`).toBe(
          DateTime.fromMillis(t, { zone }).toFormat('yyyy-MM-dd HH:mm:ss'),
        );
    }
  });

  it('parses and formats round trip', async () => {
    expect(parseTime('2026-07-01 08:00:00', 'America/New_York')).toBe(instant);
  });

  it('moves a time in a DST gap to the first valid instant after it', async () => {
    // 2026-03-08 02:30 does not exist in New York; clocks jump from 02:00 EST to 03:00 EDT.
    const t = parseTime('2026-03-08 02:30:00', 'America/New_York');
    expect(t).toBe(Date.UTC(2026, 2, 8, 7, 0, 0));
    expect(formatTime(t, 'America/New_York')).toBe('2026-03-08 03:00:00');
  });

  it('takes the earlier instant of a time that occurs twice', async () => {
    // 2026-11-01 01:30 happens at EDT (05:30Z) and again at EST (06:30Z).
    expect(parseTime('2026-11-01 01:30:00', 'America/New_York')).toBe(Date.UTC(2026, 10, 1, 5, 30, 0));
  });

  it('keeps years 0000–0099 as written (not 1900–1999)', async () => {
    for (const text of ['0099-06-15 10:00:00', '0000-01-01 00:00:00'])
      expect(formatTime(parseTime(text, 'Europe/Paris'), 'Europe/Paris')).toBe(text);
  });

  it.each(['2026-02-30 00:00:00', '2026-13-01 00:00:00', '2026-01-01 24:00:00', '2026-01-01', 'yesterday'])(
    'refuses %j with 1001',
    (text) => {
      expect(() => parseTime(text, 'UTC', 'at')).toThrowError(/at/);
    },
  );
});
