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
