/**
 * What a statement's text holds besides parameters: quoted literals ('…', with '' inside),
 * quoted identifiers ("…"), comments. An `@` in any of them is text, not a parameter.
 */
const PARTS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\/|@([A-Za-z_]\w*)/g;

/**
 * The repositories' `@name` parameters replaced by what an engine binds (`$n` on PostgreSQL, `?`
 * on SQLite): `each` is called for every parameter in the order they stand in the text, and
 * answers its placeholder.
 */
export function replaceParameters(sql: string, each: (name: string) => string): string {
  return sql.replace(PARTS, (part: string, name: string | undefined) => (name === undefined ? part : each(name)));
}

/** A parameter the statement names and the caller's object lacks: an error on both engines. */
export function missingParameter(name: string): never {
  throw new Error(`statement parameter @${name} not given`);
}
