import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

/** PAYGATE_SMTP_URL (SPEC §17) is checked when the process starts, without revealing its password. */
describe('PAYGATE_SMTP_URL', () => {
  const smtpUrl = (v: string | undefined) => loadConfig({ db: 'x.db' }, { PAYGATE_SMTP_URL: v }).smtpUrl;

  it('unset or empty: no customer email at all', () => {
    expect(smtpUrl(undefined)).toBeUndefined();
    expect(smtpUrl('  ')).toBeUndefined();
  });

  it('smtp:// and smtps:// URLs are taken as given', () => {
    expect(smtpUrl('smtp://apikey:s3cret@smtp.example.com:587')).toBe('smtp://apikey:s3cret@smtp.example.com:587');
    expect(smtpUrl('smtps://u:p@smtp.example.com')).toBe('smtps://u:p@smtp.example.com');
  });

  it.each([
    ['http://u:s3cret@smtp.example.com', /smtp:\/\/ \(STARTTLS\) or smtps:\/\//],
    ['smtp.example.com:587', /must (be a URL|start with smtp)/],
    ['smtp://u:s3cret@smtp.example.com:587/path', /no path or query/],
  ])('%s is refused with 1001 naming the variable, not its password', (url, reason) => {
    let error: unknown;
    try {
      smtpUrl(url);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: '1001', message: expect.stringMatching(reason) });
    expect(String((error as Error).message)).toContain('PAYGATE_SMTP_URL');
    expect(String((error as Error).message)).not.toContain('s3cret');
  });
});
