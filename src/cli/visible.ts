/**
 * Outside text (merchant-supplied fields, a receiver's error body) must never reach a terminal
 * raw: an ESC or a C1 control in a relationId could retitle the window, recolour the screen or
 * hide what follows. Every control character is shown as an escape a person can read and that
 * cannot be mistaken for the real thing: `\n`, `\t`, `\r`, otherwise `\xHH` (C0, DEL, C1) and
 * `\u{HHHH}` for the invisible Unicode format characters that reorder or hide text.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

function escapeControl(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/** `text` with every control character made visible. */
export function visible(text: string): string {
  return text.replace(CONTROL, escapeControl);
}

/** Like `visible`, but line breaks stay line breaks (for multi-line messages we wrote ourselves). */
export function visibleLines(text: string): string {
  return text.split('\n').map(visible).join('\n');
}
