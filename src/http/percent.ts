import { decodeWithLoneSurrogates } from '../domain/text.js';

const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

/**
 * A form-encoded name or value (`+` is a space, `%XX` runs are UTF-8 bytes) decoded to the text
 * its bytes spell — a lone surrogate included, for the field check to name (SPEC §3) — or
 * undefined when the bytes spell no text. WHATWG's decoder would turn those into U+FFFD and the
 * stock form parser would keep the escapes as literal text; both are repairs of what was sent.
 * A `%` not followed by two hex digits is kept as it is, as both of them do.
 */
export function decodeFormPart(raw: string): string | undefined {
  let bad = false;
  const text = raw.replace(/\+/g, ' ').replace(ESCAPES, (run) => {
    const decoded = decodeWithLoneSurrogates(Buffer.from(run.replace(/%/g, ''), 'hex'));
    if (decoded === undefined) bad = true;
    return decoded ?? '';
  });
  return bad ? undefined : text;
}
