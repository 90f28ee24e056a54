import { describe, expect, it } from 'vitest';
import { parseCallbackPrivate } from '../../src/config.js';
import { addressRefusal, type CallbackPrivateMode } from '../../src/notify/address-policy.js';
import { assertNotifyUrlAllowed, checkNotifyUrl, urlHostRefusal } from '../../src/notify/guard.js';
import { MAX_ATTEMPTS, nextAttemptAt } from '../../src/notify/schedule.js';

const MODES: CallbackPrivateMode[] = ['allow', 'deny'];

/** Link-local and cloud metadata addresses in every form an attacker may write them. */
const ALWAYS_REFUSED = [
  '169.254.169.254',
  '169.254.0.1',
  '169.254.255.255',
  '100.100.100.200',
  'fe80::1',
  'febf:ffff::1',
  'fe80::1%eth0',
  'fd00:ec2::254',
  // IPv4-mapped
  '::ffff:169.254.169.254',
  '::ffff:a9fe:a9fe',
  '::ffff:100.100.100.200',
  // IPv4-compatible
  '::169.254.169.254',
  '::a9fe:a9fe',
  '::100.100.100.200',
  // NAT64 (well-known and local-use prefixes)
  '64:ff9b::a9fe:a9fe',
  '64:ff9b::169.254.169.254',
  '64:ff9b::100.100.100.200',
  '64:ff9b:1::a9fe:a9fe',
  // IPv4-translated
  '::ffff:0:a9fe:a9fe',
  '::ffff:0:169.254.169.254',
  '::ffff:0:100.100.100.200',
  // 6to4
  '2002:a9fe:a9fe::1',
];

/** Not global: refused with PAYGATE_CALLBACK_PRIVATE=deny, allowed by default. */
const NON_GLOBAL = [
  // loopback
  '127.0.0.1',
  '127.255.255.254',
  '::1',
  '::7f00:1',
  '::127.0.0.1',
  '::ffff:127.0.0.1',
  '::ffff:0:127.0.0.1',
  '64:ff9b::127.0.0.1',
  // private (RFC 1918) and their embedded forms
  '10.0.0.1',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '::ffff:10.0.0.1',
  '::10.0.0.1',
  '::ffff:0:192.168.1.1',
  '64:ff9b::c0a8:101',
  // unique-local and site-local
  'fc00::1',
  'fd12:3456::1',
  'fec0::1',
  // CGNAT
  '100.64.0.1',
  '100.127.255.255',
  '100.100.100.199',
  '::ffff:100.64.0.1',
  // unspecified
  '0.0.0.0',
  '0.1.2.3',
  '::',
  '::ffff:0.0.0.0',
  // multicast and broadcast
  '224.0.0.1',
  '239.255.255.250',
  'ff02::1',
  '255.255.255.255',
  '::ffff:224.0.0.1',
  // reserved, documentation, benchmarking
  '240.0.0.1',
  '192.0.0.1',
  '192.0.2.1',
  '198.51.100.1',
  '203.0.113.1',
  '198.18.0.1',
  '2001:db8::1',
  // local-use NAT64, 6to4 and Teredo carrying private addresses
  '64:ff9b:1::a00:1',
  '2002:7f00:1::1',
  '2001:0:4136:e378:8000:63bf:f5ff:fffe',
];

const GLOBAL = [
  '93.184.216.34',
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '100.63.255.255',
  '100.128.0.1',
  '169.253.255.255',
  '169.255.0.1',
  '2606:4700::1111',
  '2a00:1450:4001:82a::200e',
  '::ffff:8.8.8.8',
  '::ffff:0:8.8.8.8',
  '64:ff9b::8.8.8.8',
];

describe('link-local and cloud metadata addresses are refused in every mode', () => {
  for (const mode of MODES) {
    it.each(ALWAYS_REFUSED)(`${mode}: %s`, (a) => {
      expect(addressRefusal(a, mode)).toMatchObject({ always: true, what: 'a link-local or cloud metadata address' });
    });
  }
});

describe('non-global addresses: refused with deny, allowed by default', () => {
  it.each(NON_GLOBAL)('deny: %s is refused', (a) => {
    expect(addressRefusal(a, 'deny')).toMatchObject({ always: false });
  });
  it.each(NON_GLOBAL)('allow: %s is allowed', (a) => {
    expect(addressRefusal(a, 'allow')).toBeUndefined();
  });
});

describe('global unicast addresses are allowed in both modes', () => {
  for (const mode of MODES) {
    it.each(GLOBAL)(`${mode}: %s`, (a) => expect(addressRefusal(a, mode)).toBeUndefined());
  }
});

describe('refusal reasons name the address, what it is and what carries it', () => {
  it('plain and embedded forms', () => {
    expect(addressRefusal('127.0.0.1', 'deny')).toEqual({
      address: '127.0.0.1',
      what: 'a loopback address',
      always: false,
    });
    expect(addressRefusal('::7f00:1', 'deny')).toEqual({
      address: '::7f00:1 (carrying 127.0.0.1)',
      what: 'a loopback address',
      always: false,
    });
    expect(addressRefusal('64:ff9b::a9fe:a9fe', 'allow')).toMatchObject({
      address: '64:ff9b::a9fe:a9fe (carrying 169.254.169.254)',
    });
    expect(addressRefusal('100.64.0.1', 'deny')?.what).toBe('a carrier-grade NAT (100.64.0.0/10) address');
  });
  it('anything but a plain IP address is refused, lenient numeric forms included', () => {
    for (const a of ['example.com', '0xA9FEA9FE', '2852039166', '0251.0376.0251.0376', '']) {
      for (const mode of MODES) expect(addressRefusal(a, mode)).toMatchObject({ what: 'not an IP address' });
    }
  });
});

describe('notifyUrl hosts: numeric forms are classified as the address the URL parser makes of them', () => {
  const metadataUrls = [
    'http://169.254.169.254/latest/meta-data/',
    'http://2852039166/',
    'http://0251.0376.0251.0376/',
    'http://0xA9.0xFE.0xA9.0xFE/',
    'http://0xa9fea9fe/',
    'http://169.254.43518/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::169.254.169.254]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[::ffff:0:a9fe:a9fe]/',
    'http://[fd00:ec2::254]/latest/meta-data/',
    'http://[fe80::1]/',
    'http://100.100.100.200/latest/meta-data/',
    'http://1684301000/',
    'https://[FD00:EC2:0:0:0:0:0:254]:8443/x',
  ];
  for (const mode of MODES) {
    it.each(metadataUrls)(`${mode}: %s is refused`, (u) => {
      expect(urlHostRefusal(new URL(u), mode)).toMatch(
        /link-local or cloud metadata address; callbacks never go there$/,
      );
    });
  }

  const loopbackUrls = [
    'http://127.0.0.1:8080/notify',
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0/',
    'http://[::1]/',
    'http://[::127.0.0.1]/',
    'http://[::7f00:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://10.1.2.3/',
    'http://0xa000001/',
    'http://[fd12::1]/',
    'http://localhost:3000/notify',
    'http://LOCALHOST./',
    'http://shop.localhost/',
  ];
  it.each(loopbackUrls)('deny: %s is refused', (u) => {
    expect(urlHostRefusal(new URL(u), 'deny')).toMatch(/PAYGATE_CALLBACK_PRIVATE=deny allows only global addresses$/);
  });
  it.each(loopbackUrls)('allow: %s is allowed', (u) => {
    expect(urlHostRefusal(new URL(u), 'allow')).toBeUndefined();
  });

  it('names are left to the connection (no DNS here)', () => {
    for (const mode of MODES) expect(urlHostRefusal(new URL('https://shop.example/notify'), mode)).toBeUndefined();
    expect(urlHostRefusal(new URL('http://localhost.shop.example/'), 'deny')).toBeUndefined();
  });

  it('assertNotifyUrlAllowed answers 1001 naming the field', () => {
    expect(() => assertNotifyUrlAllowed('http://2852039166/', 'allow')).toThrow(
      expect.objectContaining({
        code: '1001',
        field: 'notifyUrl',
        message: 'notifyUrl: host 169.254.169.254 is a link-local or cloud metadata address; callbacks never go there',
      }),
    );
    expect(() => assertNotifyUrlAllowed('http://[::127.0.0.1]/', 'deny')).toThrow(
      expect.objectContaining({ code: '1001', field: 'notifyUrl' }),
    );
    expect(() => assertNotifyUrlAllowed('http://[::127.0.0.1]/', 'allow')).not.toThrow();
    expect(() => assertNotifyUrlAllowed(undefined, 'deny')).not.toThrow();
  });
});

describe('PAYGATE_CALLBACK_PRIVATE', () => {
  it('is deny or allow (the default); anything else is a clear error, not a silent allow', () => {
    expect(parseCallbackPrivate(undefined)).toBe('allow');
    expect(parseCallbackPrivate('')).toBe('allow');
    expect(parseCallbackPrivate('allow')).toBe('allow');
    expect(parseCallbackPrivate('deny')).toBe('deny');
    for (const typo of ['DENY', 'true', 'denied', '1']) {
      expect(() => parseCallbackPrivate(typo)).toThrow(
        expect.objectContaining({
          code: '1001',
          message: 'PAYGATE_CALLBACK_PRIVATE: must be deny (or allow, the default)',
        }),
      );
    }
  });
});

describe('notifyUrl checks', () => {
  it('accepts http(s) up to 500 characters, refuses the rest', () => {
    expect(checkNotifyUrl('https://shop.example/notify').ok).toBe(true);
    expect(checkNotifyUrl(`https://shop.example/${'a'.repeat(500 - 21)}`).ok).toBe(true);
    expect(checkNotifyUrl(`https://shop.example/${'a'.repeat(501 - 21)}`).ok).toBe(false);
    expect(checkNotifyUrl('ftp://shop.example/x').ok).toBe(false);
    expect(checkNotifyUrl('javascript:alert(1)').ok).toBe(false);
    expect(checkNotifyUrl('not a url').ok).toBe(false);
  });
});

describe('retry schedule', () => {
  it('1 min, 5 min, 30 min, 2 h, 6 h, 24 h, then DEAD (7 attempts)', () => {
    const delays = [1, 2, 3, 4, 5, 6].map((n) => (nextAttemptAt(n, 0) ?? -1) / 60_000);
    expect(delays).toEqual([1, 5, 30, 120, 360, 1440]);
    expect(nextAttemptAt(7, 0)).toBeUndefined();
    expect(MAX_ATTEMPTS).toBe(7);
  });
});
