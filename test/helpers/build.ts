import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds dist/ (what `bin/paygate.js` runs) when a source file is newer than the last build, for
 * suites that spawn the real CLI and may be run on their own. `npm test` builds first, so in a
 * full run this costs a directory walk instead of a compile in every such file of every project.
 */
export function ensureBuilt(): void {
  let built = 0;
  try {
    built = statSync(join(ROOT, 'dist/cli/main.js')).mtimeMs;
  } catch {
    built = 0;
  }
  if (newestSource(join(ROOT, 'src')) <= built) return;
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')],
    { stdio: 'ignore', cwd: ROOT },
  );
}
