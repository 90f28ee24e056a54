/**
 * What paygate accepts as a customer's email address: one mailbox `local@domain.tld`, no
 * display name, no spaces, list separators (a comma would make one address two recipients) or
 * control characters (an SMTP server refuses them on every attempt), at most 254 characters
 * (RFC 5321's path limit). The API refuses anything else where it takes an address.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const EMAIL = /^[^\s@<>",;()[\]\\\x00-\x1f\x7f]+@[^\s@<>",;()[\]\\\x00-\x1f\x7f]+\.[^\s@<>",;()[\]\\\x00-\x1f\x7f]+$/;

export function isEmailAddress(v: string): boolean {
  return v.length <= 254 && EMAIL.test(v);
}

/**
 * The email of a billingAddress document (a JSON object of strings, SPEC §5), when it holds a
 * usable one. An address that is not one is ignored rather than refused: the charge has already
 * been validated, and a subscription without an email simply gets no customer email.
 */
export function emailOfAddress(doc: string | null | undefined): string | undefined {
  if (!doc) return undefined;
  try {
    const v: unknown = JSON.parse(doc);
    if (typeof v !== 'object' || v === null) return undefined;
    const email = (v as Record<string, unknown>).email;
    if (typeof email !== 'string') return undefined;
    const trimmed = email.trim();
    return isEmailAddress(trimmed) ? trimmed : undefined;
  } catch {
    return undefined;
  }
}
