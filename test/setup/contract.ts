import { afterAll, expect } from 'vitest';
import type { Exchange } from '../helpers/contract.js';
import { paygateOrigins, recordTraffic } from '../helpers/traffic.js';

/**
 * Every test file's HTTP traffic through the helpers (raw, client) is checked against the
 * OpenAPI document when the file ends: the document must describe every answer the server
 * gave and allow every request it accepted.
 */
const traffic: Exchange[] = [];
// Other servers a test talks to (callback receivers, a Stripe stand-in) have their own contracts.
recordTraffic((x) => {
  if (paygateOrigins.has(new URL(x.url).origin)) traffic.push(x);
});

afterAll(async () => {
  if (traffic.length === 0) return;
  const { ContractValidator, currentDocument } = await import('../helpers/contract.js');
  expect(new ContractValidator(currentDocument()).violations(traffic)).toEqual([]);
});
