import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Middleware } from 'openapi-fetch';
import { createPaygateClient, type PaygateClient } from '../../examples/typescript-client/src/client.js';
import { runDemo } from '../../examples/typescript-client/src/demo.js';
import { documentText, typesText } from '../../examples/typescript-client/generate.mjs';
import { tempDir } from '../helpers/env.js';
import { createMerchant, raw, startServe, type Served, type TestMerchant } from '../helpers/serve.js';
import { record } from '../helpers/traffic.js';

/** Third-party tools on the served /openapi.json: redocly, spectral, openapi-typescript, openapi-fetch. */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/typescript-client');

let srv: Served;
let merchant: TestMerchant;
let served: Record<string, unknown>;
let tmp: { dir: string; cleanup: () => void };

beforeAll(async () => {
  tmp = tempDir('paygate-openapi-');
  const db = join(tmp.dir, 'o.db');
  merchant = createMerchant(db, 2, 'Typed Client Shop');
  srv = await startServe({ dbPath: db });
  served = (await raw(`${srv.url}/openapi.json`)).body as Record<string, unknown>;
});
afterAll(async () => {
  await srv.stop();
  tmp.cleanup();
});

/** The example client's exchanges join the suite's contract check (test/setup/contract.ts). */
function recorded(client: PaygateClient): PaygateClient {
  const bodies = new WeakMap<Request, string>();
  const recorder: Middleware = {
    async onRequest({ request }) {
      bodies.set(request, await request.clone().text());
      return request;
    },
    async onResponse({ request, response }) {
      const responseHeaders: Record<string, string> = {};
      response.headers.forEach((v, k) => {
        responseHeaders[k] = v;
      });
      record({
        method: request.method,
        url: request.url,
        requestBody: bodies.get(request),
        status: response.status,
        responseHeaders,
        responseBody: await response.clone().text(),
      });
      return response;
    },
  };
  client.use(recorder);
  return client;
}

describe('/openapi.json checked with third-party tools', () => {
  it('redocly lint with the recommended ruleset (redocly.yaml) finds no error and no warning', () => {
    const file = join(tmp.dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(served));
    const r = spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'),
        'lint',
        file,
        '--config',
        join(ROOT, 'redocly.yaml'),
        '--format=json',
      ],
      {
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          HOME: tmp.dir,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        },
        timeout: 120_000,
      },
    );
    const report = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: unknown[];
    };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(r.status).toBe(0);
  });

  it('spectral lint with the spectral:oas ruleset finds nothing, not even a hint', () => {
    const file = join(tmp.dir, 'spectral.json');
    writeFileSync(file, JSON.stringify(served));
    const ruleset = join(tmp.dir, '.spectral.yaml');
    writeFileSync(ruleset, 'extends: ["spectral:oas"]\n');
    const r = spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/@stoplight/spectral-cli/dist/index.js'),
        'lint',
        file,
        '--ruleset',
        ruleset,
        '--format',
        'json',
        '--fail-severity',
        'hint',
        '--quiet',
      ],
      { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: tmp.dir }, timeout: 120_000 },
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(r.status).toBe(0);
  });

  it('the example client’s openapi.json and generated types (openapi-typescript) are those of the served document', async () => {
    const committedDoc = readFileSync(join(EXAMPLE, 'openapi.json'), 'utf8');
    expect(committedDoc, 'run `npm run build && npm run generate -w examples/typescript-client`').toBe(
      documentText(served),
    );
    const committedTypes = readFileSync(join(EXAMPLE, 'src/paygate.d.ts'), 'utf8');
    expect(committedTypes, 'run `npm run build && npm run generate -w examples/typescript-client`').toBe(
      await typesText(served),
    );
  });

  it('the example client typechecks on its own, strict, without a cast (tsc --noEmit)', () => {
    const sources = ['src/client.ts', 'src/demo.ts'].map((f) => readFileSync(join(EXAMPLE, f), 'utf8')).join('\n');
    expect(sources).not.toMatch(/\bas\s+(unknown|any|[A-Z]\w*)\b|<any>|@ts-(ignore|expect-error)/);
    const r = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(EXAMPLE, 'tsconfig.json')],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('the example client (openapi-fetch + its v2 signing middleware) pays, refunds and subscribes against a real serve', async () => {
    const client = recorded(
      createPaygateClient({
        baseUrl: srv.url,
        merchantId: merchant.merchantId,
        apiKey: merchant.apiKey,
        secret: merchant.secret,
      }),
    );
    const out = await runDemo(client, merchant, 'demo');
    expect(out.payment).toMatchObject({ status: '200000', payAmount: '25.00', currency: 'USD' });
    expect(out.refund).toMatchObject({
      status: '400010',
      payAmount: '5.00',
      transactionOrderId: out.payment.transactionOrderId,
    });
    expect(out.subscription).toMatchObject({
      status: 'ACTIVE',
      userId: 'user-42',
      amount: 9.99,
      cycleType: 'MONTHLY',
      billingCount: 1,
    });
  });

  it('the signing middleware’s signature is what the server checks: a wrong secret is refused with 1002', async () => {
    const client = recorded(
      createPaygateClient({
        baseUrl: srv.url,
        merchantId: merchant.merchantId,
        apiKey: merchant.apiKey,
        secret: 'not-the-secret',
      }),
    );
    const r = await client.GET('/subscription/plan/list', { params: { query: { merchantId: merchant.merchantId } } });
    expect(r.response.status).toBe(401);
    expect(r.error).toMatchObject({ rtn_code: '1002', success: false });
  });
});
