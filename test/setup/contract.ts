import { afterAll, expect } from 'vitest';
import type { Exchange } from '../helpers/contract.js';
import { recordTraffic } from '../helpers/traffic.js';

/**
 * Every test file's HTTP traffic through the helpers (raw, client) is checked against the
 * OpenAPI document when the file ends: the document must describe every answer the server
 * gave and allow every request it accepted.
 */
const traffic: Exchange[] = [];
recordTraffic((x) => traffic.push(x));

afterAll(async () => {
  if (traffic.length === 0) return;
  const { ContractValidator, currentDocument } = await import('../helpers/contract.js');
  expect(new ContractValidator(currentDocument()).violations(traffic)).toEqual([]);
});
