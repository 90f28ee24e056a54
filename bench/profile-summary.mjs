#!/usr/bin/env node
// Where a V8 CPU profile's time went: self time by package or source file, and the hottest
// functions. Usage: node bench/profile-summary.mjs FILE.cpuprofile [--top N]
// A package is node_modules/NAME; our code is dist/…; node: internals are named by module.
import { readFileSync } from 'node:fs';

const files = process.argv.slice(2).filter((a, i, all) => a.endsWith('.cpuprofile') && all[i - 1] !== '--top');
const topAt = process.argv.indexOf('--top');
const top = topAt > 0 ? Number(process.argv[topAt + 1]) : 25;

function where(url) {
  if (!url) return '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const ours = /\/dist\/(.+)$/.exec(url);
  if (ours) return `dist/${ours[1]}`;
  if (url.startsWith('node:')) return url;
  return url;
}

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const hits = new Map();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const dts = profile.timeDeltas;
  const total = dts.reduce((a, b) => a + b, 0) / 1000;
  const perSample = total / profile.samples.length;
  const byPlace = new Map();
  const byFn = new Map();
  for (const [id, n] of hits) {
    const node = byId.get(id);
    const cf = node.callFrame;
    const name = cf.functionName || '(anonymous)';
    const place = ['(idle)', '(garbage collector)', '(program)'].includes(name) ? name : where(cf.url);
    byPlace.set(place, (byPlace.get(place) ?? 0) + n);
    const fn = `${name} ${where(cf.url)}:${cf.lineNumber + 1}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + n);
  }
  const busy = profile.samples.length - (byPlace.get('(idle)') ?? 0);
  const show = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([k, n]) => `${((100 * n) / busy).toFixed(1).padStart(5)}%  ${(n * perSample).toFixed(0).padStart(6)} ms  ${k}`,
      )
      .join('\n');
  console.log(
    `# ${file}: ${total.toFixed(0)} ms profiled, ${(busy * perSample).toFixed(0)} ms busy (shares of busy)\n`,
  );
  console.log(`## by package or file\n${show(byPlace)}\n`);
  console.log(`## by function\n${show(byFn)}\n`);
}
