/** What both dialects' builders share: finding a built column by SQL table and column name. */

export function columnOf<C>(built: ReadonlyMap<string, object>, table: string, column: string): C {
  const t = built.get(table) as Record<string, unknown> | undefined;
  const key = Object.keys(t ?? {}).find((k) => (t?.[k] as { name?: unknown } | undefined)?.name === column);
  if (!t || key === undefined) throw new Error(`foreign key to ${table}.${column}: no such table or column`);
  return t[key] as C;
}

/** A drizzle table's columns for an index or key, by their keys; at least one. */
export function indexColumns<C>(self: Record<string, C>, keys: readonly string[]): [C, ...C[]] {
  const cols = keys.map((k) => {
    const c = self[k];
    if (c === undefined) throw new Error(`index on unknown column ${k}`);
    return c;
  });
  const [first, ...rest] = cols;
  if (first === undefined) throw new Error('an index needs a column');
  return [first, ...rest];
}
