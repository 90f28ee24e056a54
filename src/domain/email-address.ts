/**
 * What paygate accepts as a customer's email address: one mailbox `local@domain.tld`, no
 * display name, no spaces or list separators (a comma would make one address two recipients),
 * at most 254 characters (RFC 5321's path limit).
 */
const EMAIL = /^[^\s@<>",;()[\]\\]+@[^\s@<>",;()[\]\\]+\.[^\s@<>",;()[\]\\]+$/;

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
