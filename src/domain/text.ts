/**
 * SPEC §3: text is valid Unicode. A JSON string may spell a lone surrogate (`"\ud800"` unpaired),
 * which no UTF-8 text can hold: SQLite would store invalid bytes (read back as U+FFFD, so two
 * different ids become one) and PostgreSQL would repair it to U+FFFD. Both engines must hold
 * exactly what was sent, so such text is refused before anything is stored.
 */

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/**
 * The path of the first string — an object key or a value, at any depth — holding a lone
 * surrogate; a key is reported as its own path (the field that is wrong is its name).
 */
export function loneSurrogatePath(value: unknown, path: readonly PropertyKey[] = []): PropertyKey[] | undefined {
  if (typeof value === 'string') return hasLoneSurrogate(value) ? [...path] : undefined;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = loneSurrogatePath(v, [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (hasLoneSurrogate(k)) return [...path, k];
      const found = loneSurrogatePath(v, [...path, k]);
      if (found) return found;
    }
  }
  return undefined;
}

/** Text safe to print and to send as JSON: each lone surrogate written as its `\uXXXX` escape. */
export function escapeLoneSurrogates(text: string): string {
  return text.replace(
    new RegExp(LONE_SURROGATE.source, 'g'),
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
