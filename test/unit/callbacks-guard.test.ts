import { describe, expect, it } from 'vitest';
import { checkNotifyUrl, isPrivateAddress } from '../../src/notify/guard.js';
import { MAX_ATTEMPTS, nextAttemptAt } from '../../src/notify/schedule.js';

describe('private address ranges (PAYGATE_CALLBACK_PRIVATE=deny)', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1'])(
    '%s is refused',
    (a) => expect(isPrivateAddress(a)).toBe(true),
  );
  it.each(['93.184.216.34', '172.32.0.1', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])('%s is allowed', async (a) =>
    expect(isPrivateAddress(a)).toBe(false),
  );
});

describe('notifyUrl checks', () => {
  it('accepts http(s) up to 500 characters, refuses the rest', async () => {
    expect(checkNotifyUrl('https://shop.example/notify').ok).toBe(true);
    expect(checkNotifyUrl(`https://shop.example/${'a'.repeat(500 - 21)}`).ok).toBe(true);
    expect(checkNotifyUrl(`https://shop.example/${'a'.repeat(501 - 21)}`).ok).toBe(false);
    expect(checkNotifyUrl('ftp://shop.example/x').ok).toBe(false);
    expect(checkNotifyUrl('javascript:alert(1)').ok).toBe(false);
    expect(checkNotifyUrl('not a url').ok).toBe(false);
  });
});

describe('retry schedule', () => {
  it('1 min, 5 min, 30 min, 2 h, 6 h, 24 h, then DEAD (7 attempts)', async () => {
    const delays = [1, 2, 3, 4, 5, 6].map((n) => (nextAttemptAt(n, 0) ?? -1) / 60_000);
    expect(delays).toEqual([1, 5, 30, 120, 360, 1440]);
    expect(nextAttemptAt(7, 0)).toBeUndefined();
    expect(MAX_ATTEMPTS).toBe(7);
  });
});
