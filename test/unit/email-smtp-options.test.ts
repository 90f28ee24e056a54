import { describe, expect, it } from 'vitest';
import { SmtpUrlError, smtpOptions } from '../../src/notify/email/smtp.js';

describe('PAYGATE_SMTP_URL', () => {
  it('requires STARTTLS with a verified certificate for smtp:// to another machine, port 587 by default', () => {
    const o = smtpOptions('smtp://apikey:s%40cret@smtp.example.com');
    expect(o).toMatchObject({
      host: 'smtp.example.com',
      port: 587,
      secure: false,
      requireTLS: true,
      tls: { rejectUnauthorized: true, servername: 'smtp.example.com' },
      auth: { user: 'apikey', pass: 's@cret' },
      allowInternalNetworkInterfaces: false,
    });
  });

  it('speaks TLS from the first byte for smtps://, port 465 by default', () => {
    expect(smtpOptions('smtps://u:p@mail.example.com')).toMatchObject({ port: 465, secure: true, requireTLS: false });
    expect(smtpOptions('smtps://mail.example.com:2465').port).toBe(2465);
  });

  it.each(['smtp://127.0.0.1:25', 'smtp://localhost:2525', 'smtp://[::1]:25', 'smtp://127.0.0.53'])(
    'uses TLS when offered but does not require it for a relay on this machine: %s',
    (url) => {
      const o = smtpOptions(url);
      expect(o.requireTLS).toBe(false);
      expect(o.tls).toEqual({ rejectUnauthorized: false });
    },
  );

  it('sends without credentials when the URL has none', () => {
    expect(smtpOptions('smtp://relay.example.com:25').auth).toBeUndefined();
  });

  it.each([
    ['not a url', /must be a URL/],
    ['http://smtp.example.com', /smtp:\/\/ \(STARTTLS\) or smtps:\/\//],
    ['smtp://smtp.example.com/path', /no path or query/],
    ['smtp://smtp.example.com?tls=off', /no path or query/],
  ])('refuses %j with a message naming the setting', (url, message) => {
    expect(() => smtpOptions(url)).toThrow(SmtpUrlError);
    expect(() => smtpOptions(url)).toThrow(message);
    expect(() => smtpOptions(url)).toThrow(/^PAYGATE_SMTP_URL /);
  });

  it('never repeats the password in its refusal', () => {
    expect(() => smtpOptions('http://user:hunter2@smtp.example.com')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
});
