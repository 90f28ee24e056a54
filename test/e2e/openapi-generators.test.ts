import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/http/openapi-document.js';
import { tempDir } from '../helpers/env.js';

/**
 * Client generators on /openapi.json: orval and @hey-api/openapi-ts generate a client, and
 * `tsc --strict` compiles it. Both need Node >= 22.18, which the project's Node 20 floor cannot
 * give as devDependencies (npm ci on Node 20 would warn), so they run where a newer Node and an
 * install of them are named:
 *
 *   PAYGATE_GENERATORS_DIR=/path/to/dir     holds node_modules/orval and node_modules/@hey-api/openapi-ts
 *   PAYGATE_GENERATORS_NODE=/path/to/node   Node >= 22.18; not needed when the suite itself runs on one
 *
 * Without them the tests are skipped, saying so. openapi-typescript runs on Node 20 and is
 * covered by openapi-tools.test.ts (the example client).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Whether a Node version string is 22.18 or newer, what both generators require. */
function newEnough(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 18);
}

// A run of the suite on a new enough Node (CI's Node 24 run) needs only the install directory.
const NODE = process.env.PAYGATE_GENERATORS_NODE ?? (newEnough(process.versions.node) ? process.execPath : '');
const DIR = process.env.PAYGATE_GENERATORS_DIR ?? '';
const configured = NODE !== '' && DIR !== '';
if (!configured)
  console.warn(
    'openapi-generators: orval and @hey-api/openapi-ts skipped: set PAYGATE_GENERATORS_DIR (where both are installed) and, on a Node older than 22.18, PAYGATE_GENERATORS_NODE (a Node >= 22.18)',
  );

/** A generator plus a strict compile of its output: tens of seconds on a shared 2-core machine. */
const GENERATE_MS = 480_000;

// Made by the suite's hooks, not at import: a skipped suite runs no hook, and a directory made at
// import was left behind in the temporary directory by every run that skipped it.
let tmp: { dir: string; cleanup: () => void };
let docFile: string;

function generator(args: string[]): { status: number | null; output: string } {
  const r = spawnSync(NODE, args, {
    cwd: tmp.dir,
    encoding: 'utf8',
    // The generators start `node` themselves for some steps: the same newer Node.
    env: { PATH: `${dirname(NODE)}:${process.env.PATH}`, HOME: tmp.dir, NO_COLOR: '1' },
    timeout: 240_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}${r.error ? String(r.error) : ''}` };
}

/** `tsc --strict` over one generated client, with the project's TypeScript; '' when it compiles. */
function compile(dir: string, entry: string): string {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        // A browser-style fetch client: DOM's fetch, Headers and their iterators.
        lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        types: [],
      },
      files: [entry],
    }),
  );
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], {
    encoding: 'utf8',
    timeout: 240_000,
  });
  return `${r.stdout}${r.stderr}`;
}

describe.skipIf(!configured)('client generators on Node >= 22.18', () => {
  beforeAll(() => {
    tmp = tempDir('paygate-generators-');
    docFile = join(tmp.dir, 'openapi.json');
    writeFileSync(docFile, JSON.stringify(openApiDocument('http://127.0.0.1:8080')));
  });
  afterAll(() => tmp?.cleanup());

  it('the named Node is 22.18 or newer and both generators are installed', () => {
    const v = generator(['-p', 'process.versions.node']).output.trim();
    expect(newEnough(v), `PAYGATE_GENERATORS_NODE is Node ${v}`).toBe(true);
    for (const tool of ['orval', '@hey-api/openapi-ts'])
      expect(existsSync(join(DIR, 'node_modules', tool, 'package.json')), `${tool} in ${DIR}`).toBe(true);
  });

  it(
    'orval (fetch client) generates a client that compiles under tsc --strict, with no untyped field',
    () => {
      const out = join(tmp.dir, 'orval');
      const config = join(tmp.dir, 'orval.config.mjs');
      writeFileSync(
        config,
        `export default { paygate: { input: { target: ${JSON.stringify(docFile)} }, output: { target: ${JSON.stringify(join(out, 'paygate.ts'))}, client: 'fetch', mode: 'single' } } };\n`,
      );
      const r = generator([join(DIR, 'node_modules/.bin/orval'), '--config', config]);
      expect(r.status, r.output).toBe(0);
      const code = readFileSync(join(out, 'paygate.ts'), 'utf8');
      // Free-form bodies (the document itself, a Stripe event, an address's further fields) may
      // be `{ [key: string]: unknown }`; a field typed `unknown` is a schema the generator could not read.
      expect(code).not.toMatch(/\| unknown\b|\?: unknown;/);
      expect(compile(out, 'paygate.ts')).toBe('');
    },
    GENERATE_MS,
  );

  it(
    '@hey-api/openapi-ts generates a client that compiles under tsc --strict and signs POSTs by header only',
    () => {
      const out = join(tmp.dir, 'hey-api');
      const r = generator([join(DIR, 'node_modules/.bin/openapi-ts'), '-i', docFile, '-o', out]);
      expect(r.status, r.output).toBe(0);
      expect(readdirSync(out)).toContain('index.ts');
      // A v1 sign placed in the query string of a POST is refused (1002): the generated security
      // of a POST must not put it there.
      const sdk = readFileSync(join(out, 'sdk.gen.ts'), 'utf8');
      const pay = /url: '\/payment\/\{apiKey\}\/transaction',/.exec(sdk);
      expect(pay).not.toBeNull();
      const before = sdk.slice(Math.max(0, (pay?.index ?? 0) - 300), pay?.index);
      expect(before).toContain("security: [{ name: 'X-Paygate-Signature', type: 'apiKey' }]");
      expect(compile(out, 'index.ts')).toBe('');
    },
    GENERATE_MS,
  );
});
