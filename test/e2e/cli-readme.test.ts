import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { paygateAsync } from '../helpers/cli-async.js';
import { paygate } from '../helpers/cli.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** Command names listed under "Commands:" in a --help text (help itself excluded). */
function commandsOf(help: string): string[] {
  const section = help.split(/^Commands:$/m)[1] ?? '';
  return section
    .split('\n')
    .map((l) => /^ {2}([a-z][a-z-]*)/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined && n !== 'help');
}

describe('README CLI reference matches --help', () => {
  const top = commandsOf(paygate(['--help']).stdout);

  it('lists the command groups', () => {
    expect(top.length).toBeGreaterThan(8);
  });

  it('names every command and subcommand of the binary', async () => {
    // One --help per group, all at once: they are independent processes.
    const helps = await Promise.all(top.map((group) => paygateAsync([group, '--help'])));
    const missing: string[] = [];
    for (const [i, group] of top.entries()) {
      const subs = commandsOf(helps[i]?.stdout ?? '');
      const paths = subs.length > 0 ? subs.map((s) => `${group} ${s}`) : [group];
      for (const path of paths) if (!readme.includes(`\`${path}`)) missing.push(path);
    }
    expect(missing).toEqual([]);
  });
});

describe('README and --help describe --db alike', () => {
  it('names both engines: a SQLite file or a postgres:// URL', () => {
    const help = paygate(['--help']).stdout;
    const option = help.slice(help.indexOf('--db'), help.indexOf('--tz'));
    expect(option).toMatch(/--db <file\|url>/);
    expect(option).toMatch(/SQLite database file/);
    expect(option).toMatch(/postgres:\/\//);
    expect(readme).toContain('`--db FILE\\|URL` (global)');
  });

  it('lists each doc once in "More"', () => {
    const more = readme.slice(readme.indexOf('## More'));
    const docs = [...more.matchAll(/^- `(docs\/[a-z-]+\.md)`/gm)].map((m) => m[1]);
    expect(docs.length).toBeGreaterThan(5);
    expect(new Set(docs).size).toBe(docs.length);
  });

  it('no longer calls PostgreSQL URLs unsupported, in the README or docs/postgres.md', () => {
    const postgres = readFileSync(new URL('../../docs/postgres.md', import.meta.url), 'utf8');
    for (const text of [readme, postgres])
      expect(text).not.toMatch(/not accept a PostgreSQL URL|once the app opens PostgreSQL/);
  });
});
