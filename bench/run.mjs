#!/usr/bin/env node
// `npm run bench`: every benchmark, each beside its baseline, in one run on this machine.
// Usage: npm run bench [-- renewals|http|report|stripe ...]   (default: all). Build first (npm ci does).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

const all = ['renewals', 'http', 'report', 'stripe'];
const chosen = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = chosen.length > 0 ? chosen : all;

console.log(`# paygate benchmarks — ${new Date().toISOString().slice(0, 10)}`);
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}\n`);

let failed = false;
for (const name of names) {
  const file = fileURLToPath(new URL(`./${name}.mjs`, import.meta.url));
  if (!existsSync(file)) {
    console.error(`unknown benchmark ${name} (have: ${all.join(', ')})`);
    failed = true;
    continue;
  }
  const r = spawnSync(process.execPath, ['--expose-gc', file], { stdio: 'inherit' });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
