import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Only store/ knows SQL, drivers and dialects: everything else reaches the database through the
 * store interface (src/store/store.ts) and its row types. app.ts, the composition root, may also
 * open the store (store/open.ts).
 */
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const outside = files(SRC)
  .map((path) => ({ path, rel: relative(SRC, path).replaceAll('\\', '/') }))
  .filter((f) => !f.rel.startsWith('store/'));

const SQL =
  /\b(SELECT\s[\s\S]*?\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX)|BEGIN\s+IMMEDIATE|PRAGMA)\b/;
const DRIVERS = /from\s+'(better-sqlite3|drizzle-orm[^']*|drizzle-kit|pg|postgres)'/;
const STORE_IMPORT = /from\s+'((?:\.\.?\/)+(?:\.\.\/)*store\/[^']*)'/g;

describe('the store boundary', () => {
  it('finds the source files it checks', () => {
    expect(outside.length).toBeGreaterThan(50);
  });

  it('no file outside src/store/ contains SQL', () => {
    const offenders = outside.filter((f) => SQL.test(readFileSync(f.path, 'utf8'))).map((f) => f.rel);
    expect(offenders).toEqual([]);
  });

  it('no file outside src/store/ imports a database driver or drizzle', () => {
    const offenders = outside.filter((f) => DRIVERS.test(readFileSync(f.path, 'utf8'))).map((f) => f.rel);
    expect(offenders).toEqual([]);
  });

  it('outside src/store/ only the interface module is imported (and the opener, by app.ts)', () => {
    const offenders: string[] = [];
    for (const f of outside) {
      for (const m of readFileSync(f.path, 'utf8').matchAll(STORE_IMPORT)) {
        const target = m[1] ?? '';
        const allowed = target.endsWith('store/store.js') || (f.rel === 'app.ts' && target === './store/open.js');
        if (!allowed) offenders.push(`${f.rel} → ${target}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('services, notify/, http/ and cli/ do not import the composition root', () => {
    const offenders = outside
      .filter((f) => /^(services|notify|http|channel|vault|domain)\//.test(f.rel))
      .filter((f) => /from\s+'(?:\.\.\/)+app\.js'/.test(readFileSync(f.path, 'utf8')))
      .map((f) => f.rel);
    expect(offenders).toEqual([]);
  });

  /** Every module a file imports (static, dynamic or type-only), as a path under src/. */
  const importsOf = (f: { path: string; rel: string }): string[] =>
    [...readFileSync(f.path, 'utf8').matchAll(/(?:from\s+|import\()\s*'(\.{1,2}\/[^']*)'/g)].map((m) =>
      relative(SRC, join(dirname(f.path), m[1] ?? '')).replaceAll('\\', '/'),
    );

  it('the shells (cli/, http/) import no store module: rows, errors and database operations reach them through services', () => {
    const offenders = outside
      .filter((f) => /^(cli|http)\//.test(f.rel))
      .flatMap((f) =>
        importsOf(f)
          .filter((t) => t.startsWith('store/'))
          .map((t) => `${f.rel} → ${t}`),
      );
    expect(offenders).toEqual([]);
  });

  it('the vault imports no store module (it seals and opens values; services store them)', () => {
    const offenders = outside
      .filter((f) => f.rel.startsWith('vault/'))
      .flatMap((f) =>
        importsOf(f)
          .filter((t) => t.startsWith('store/'))
          .map((t) => `${f.rel} → ${t}`),
      );
    expect(offenders).toEqual([]);
  });

  it('the channels do not import config.ts (the registry is handed what it needs by app.ts)', () => {
    const offenders = outside
      .filter((f) => f.rel.startsWith('channel/'))
      .flatMap((f) =>
        importsOf(f)
          .filter((t) => t === 'config.js')
          .map((t) => `${f.rel} → ${t}`),
      );
    expect(offenders).toEqual([]);
  });

  it('notify/ imports no service, shell or channel: delivery is handed what it builds (a document email)', () => {
    const offenders = outside
      .filter((f) => f.rel.startsWith('notify/'))
      .flatMap((f) =>
        importsOf(f)
          .filter((t) => /^(services|http|cli|channel)\//.test(t))
          .map((t) => `${f.rel} → ${t}`),
      );
    expect(offenders).toEqual([]);
  });
});
