import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  trackingResponseSign,
  v1Sign,
  v1StringToSign,
  v2CallbackHeader,
  v2RequestHeader,
} from '../../src/domain/signature.js';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/signatures.json', import.meta.url), 'utf8'));

describe('signature vectors (shared/vectors/signatures.json)', () => {
  for (const v of vectors.v1) {
    it(`v1: ${v.name}`, async () => {
      expect(v1StringToSign(v.method, v.path, v.params, vectors.secret)).toBe(v.stringToSign);
      expect(v1Sign(v.method, v.path, v.params, vectors.secret)).toBe(v.sign);
    });
  }
  for (const v of vectors.v2) {
    it(`v2: ${v.name}`, async () => {
      expect(v2RequestHeader(vectors.secret, v.t, v.method, v.path, v.payload)).toBe(v.header);
    });
  }
  for (const v of vectors.v2Callbacks) {
    it(`v2 callback: ${v.name}`, async () => {
      expect(v2CallbackHeader(vectors.secret, v.t, v.rawBody)).toBe(v.header);
    });
  }
  it('tracking response data.sign', async () => {
    expect(trackingResponseSign(vectors.trackingResponse.data, vectors.secret)).toBe(vectors.trackingResponse.sign);
  });
});
