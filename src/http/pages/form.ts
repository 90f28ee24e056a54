import { decodeFormPart } from '../percent.js';

/**
 * Form bodies of the hosted pages (application/x-www-form-urlencoded). The stock parser leaves an
 * escape it cannot decode as literal text (`%ED%A0%80` stays those nine characters) and the page
 * would store it so. Here a field is decoded to the text its bytes spell — a lone surrogate
 * included, which the card check then names (SPEC §3) — and bytes that spell no text make the
 * request a 400 page, as does U+0000 anywhere (no browser sends it from a field, and PostgreSQL
 * cannot store or even compare it: the API refuses it too). A field sent twice is kept as a list,
 * which no page field accepts.
 */
class MalformedForm extends Error {
  readonly statusCode = 400;
}

function decodePart(raw: string): string {
  const text = decodeFormPart(raw);
  if (text === undefined) throw new MalformedForm('form field is not valid UTF-8');
  if (text.includes('\u0000')) throw new MalformedForm('form field holds the NUL character (U+0000)');
  return text;
}

export function parseForm(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of body.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodePart(eq < 0 ? pair : pair.slice(0, eq));
    const value = decodePart(eq < 0 ? '' : pair.slice(eq + 1));
    if (name === '__proto__') continue;
    const seen = out[name];
    out[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return out;
}
