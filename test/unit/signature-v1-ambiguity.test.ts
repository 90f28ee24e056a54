import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { v1Ambiguity, v1Joined } from '../../src/domain/signature.js';

/** Every way to read `joined` as fields: each chosen `&` ends a field, each field splits at one of its `=`. */
function parses(joined: string): Record<string, string>[] {
  const amps = [...joined].flatMap((c, i) => (c === '&' ? [i] : []));
  const out: Record<string, string>[] = [];
  for (let mask = 0; mask < 1 << amps.length; mask++) {
    const cuts = amps.filter((_, j) => mask & (1 << j));
    const segments = [-1, ...cuts].map((start, j) => joined.slice(start + 1, cuts[j] ?? joined.length));
    let partial: Record<string, string>[] = [{}];
    for (const seg of segments) {
      const next: Record<string, string>[] = [];
      for (let i = 0; i < seg.length; i++) {
        if (seg[i] !== '=') continue;
        const name = seg.slice(0, i);
        for (const p of partial) if (!Object.hasOwn(p, name)) next.push({ ...p, [name]: seg.slice(i + 1) });
      }
      partial = next;
    }
    out.push(...partial);
  }
  return out;
}

describe('v1 requests that pass the ambiguity check sign unambiguously', () => {
  it('a joined string has at most one reading whose fields all pass (exhaustive over short strings)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', '_', '1', '&', '=', ' '), maxLength: 12 }), (joined) => {
        const accepted = parses(joined).filter((p) => v1Joined(p) === joined && v1Ambiguity(p) === undefined);
        expect(accepted.length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 3000 },
    );
  });

  it('names the first offending field in signing order, nested JSON included', () => {
    expect(v1Ambiguity({ requestId: 'r1&transactionOrderId=txn_1', amount: '1' })).toEqual({
      field: 'requestId',
      reason: 'value',
    });
    expect(v1Ambiguity({ 'a=b&c': 'x' })).toEqual({ field: 'a=b&c', reason: 'name' });
    expect(v1Ambiguity({ trackingList: [{ trackingNo: 'T&orderId=x' }] })).toEqual({
      field: 'trackingList',
      reason: 'value',
    });
    expect(v1Ambiguity({ name: 'Smith & Sons', other: 'a&b', more: 'x&=1', sign: 'a&b=c', empty: '' })).toBeUndefined();
  });
});
