/**
 * The shape of PAYGATE_SMTP_URL, checked without loading nodemailer: config.ts refuses a bad one
 * when the process starts, and smtp.ts builds the transport from a good one.
 */
export function smtpUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be a URL such as smtp://user:password@smtp.example.com:587';
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:')
    return `must start with smtp:// (STARTTLS) or smtps:// (TLS), not ${u.protocol}//`;
  if (!u.hostname) return 'names no host';
  if ((u.pathname !== '' && u.pathname !== '/') || u.search || u.hash)
    return 'takes no path or query: only smtp[s]://user:password@host:port';
  return undefined;
}
