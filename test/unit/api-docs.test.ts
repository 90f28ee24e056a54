import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RESULT_CODES } from '../../src/domain/errors.js';
import { trackingResponseSign, v1Sign, v1Joined, v2RequestHeader } from '../../src/domain/signature.js';
import { SUBSCRIPTION_STATUSES } from '../../src/domain/subscription-state.js';
import { httpStatusOf } from '../../src/http/envelope.js';
import { openApiDocument } from '../../src/http/openapi-document.js';
import { STATUS } from '../../src/services/transactions/view.js';

/** The repository alone documents the API: docs/api.md stays true to the code it describes. */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const api = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
const docs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'examples/typescript-client/README.md',
];

// The worked example of docs/api.md.
const secret = 'sk_5hJ2kP9qRz7TxW3mVb8NcY4dLs6Fg1Ae';
const merchantId = 'mer_01KDRX0V4Y3M2T8QZC6N9PJ5HA';
const refundPath = '/payment/ak_Qm3tR8vZx2LkP9sW4nYb7c/refund';
const refund = {
  merchantId,
  transactionOrderId: 'txn_01KDRX3B7W5N8R2C4V6M9QTZ1E',
  refundAmount: '5.00',
  requestId: 'refund-7',
};
const detailQuery = `merchantId=${merchantId}&subscriptionId=sub_01KDRX5G2H8J4K6L0M3N5P7Q9R`;
const t = 1767225600;

describe('docs/api.md', () => {
  it('its worked signing examples are what the signature module computes', () => {
    expect(api).toContain(v2RequestHeader(secret, t, 'POST', refundPath, JSON.stringify(refund)));
    expect(api).toContain(v2RequestHeader(secret, t, 'GET', '/subscription/detail', detailQuery));
    expect(api).toContain(`sign:    ${v1Sign('POST', refundPath, refund, secret)}`);
    expect(api).toContain(`joined:  ${v1Joined(refund)}`);
    expect(api).toContain(
      `&sign=${v1Sign('GET', '/subscription/detail', { merchantId, subscriptionId: 'sub_01KDRX5G2H8J4K6L0M3N5P7Q9R' }, secret)}`,
    );
    const withJson = {
      requestId: 'r-1',
      cycleLength: 1,
      description: '',
      items: [{ price: '25.00', name: 'Mug', num: '1' }],
      merchantId,
    };
    expect(api).toContain(`joins as \`${v1Joined(withJson)}\``);
    expect(api).toContain(
      trackingResponseSign({ successCount: 1, failedCount: 1, failedOrders: ['order-9999'] }, secret),
    );
  });

  it('names every result code with its name and HTTP status', () => {
    for (const [name, code] of Object.entries(RESULT_CODES)) {
      const row = api.split('\n').find((l) => l.startsWith(`| ${code} | ${name} |`));
      expect(row, `${code} ${name}`).toBeDefined();
      expect(row).toContain(String(httpStatusOf(code)));
    }
  });

  it('names every transaction status code and every subscription status', () => {
    for (const [name, code] of Object.entries(STATUS)) expect(api).toContain(`| ${code} | ${name} |`);
    for (const status of SUBSCRIPTION_STATUSES) expect(api).toContain(`| ${status} |`);
  });

  it('documents every endpoint of the OpenAPI document', () => {
    const doc = openApiDocument('http://localhost') as { paths: Record<string, Record<string, unknown>> };
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) expect(api, `${method.toUpperCase()} ${path}`).toContain(`\`${path}\``);
    }
  });
});

describe('README and docs stand alone', () => {
  it.each(docs)('%s cites no contract outside the repository', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    expect(text).not.toMatch(/SPEC|§|\.\.\/shared|SERVICE\.md|ARCHITECTURE\.md/);
  });

  it.each(docs)('%s links only files that exist', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
      const target = m[1] ?? '';
      if (/^https?:/.test(target)) continue;
      expect(existsSync(resolve(dirname(join(ROOT, file)), target)), `${file} → ${target}`).toBe(true);
    }
  });
});
