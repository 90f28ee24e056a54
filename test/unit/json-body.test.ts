import { describe, expect, it } from 'vitest';
import { decodeBody, parseJsonObject } from '../../src/http/body.js';

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code;
  }
}

describe('request bodies are unambiguous', () => {
  it('a key given twice in one object is 1000, at the top level and at any depth', () => {
    for (const raw of [
      '{"payAmount":"1.00","payAmount":"99.00"}',
      '{"cardInfo":{"cvv":"123","cvv":"999"}}',
      '{"items":[{"name":"a"},{"name":"b","name":"c"}]}',
      '{"a":[[[{"x":{"y":1,"y":2}}]]]}',
      // The same name spelled with an escape is the same key.
      '{"payAmount":"1.00","pay\\u0041mount":"2.00","payAmount":"3.00"}',
      '{"a":1,"\\u0061":2}',
    ]) {
      expect(
        codeOf(() => parseJsonObject(raw)),
        raw,
      ).toBe('1000');
    }
    expect(() => parseJsonObject('{"amount":"1","amount":"2"}')).toThrow(/"amount" more than once/);
  });

  it('the same key in different objects, or a value equal to a key, is fine', () => {
    expect(
      parseJsonObject('{"items":[{"name":"a"},{"name":"b"}],"name":"name","x":{"name":{"name":"name"}}}'),
    ).toMatchObject({ name: 'name' });
    expect(parseJsonObject('{"a":"\\"a\\":1,\\"a\\"","b":["a","a"],"c":{},"d":[]}')).toMatchObject({ b: ['a', 'a'] });
    expect(parseJsonObject('{"k":{"a":1},"j":{"a":1}}')).toEqual({ k: { a: 1 }, j: { a: 1 } });
  });

  it('bytes that are not valid UTF-8 are 1000; valid UTF-8 decodes exactly, BOM included', () => {
    for (const bytes of [
      [0x7b, 0xff, 0x7d],
      [0x22, 0xc3],
      // CESU-8 for U+1F600: two encoded surrogates that pair up are not UTF-8, and not repaired.
      [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80],
      [0xed, 0xa0, 0x80, 0xff],
      [0xc0, 0xaf],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
    ]) {
      expect(
        codeOf(() => decodeBody(Buffer.from(bytes))),
        JSON.stringify(bytes),
      ).toBe('1000');
    }
    expect(decodeBody(Buffer.from('{"name":"茶 €"}', 'utf8'))).toBe('{"name":"茶 €"}');
    expect(decodeBody(Buffer.from('\ufeff{}', 'utf8'))).toBe('\ufeff{}');
  });

  it('a lone surrogate written as bytes decodes to that surrogate, for the field check to name (SPEC §3)', () => {
    expect(decodeBody(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]))).toBe('"\ud800"');
    expect(decodeBody(Buffer.from([0xed, 0xbf, 0xbf, 0xed, 0xa0, 0x80]))).toBe('\udfff\ud800');
  });
});
