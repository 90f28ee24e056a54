import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';

const ID = /^txn_[0-9A-HJKMNP-TV-Z]{26}$/;

describe('ids', () => {
  it('are the prefix, ten characters of time and sixteen random ones, in Crockford base32', () => {
    expect(newId('txn', Date.UTC(2026, 10, 26))).toMatch(ID);
  });

  it('made in the same millisecond sort in the order they were made', () => {
    const ms = Date.UTC(2026, 10, 26, 12);
    const ids = Array.from({ length: 1000 }, () => newId('txn', ms));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(1000);
  });

  it('of different milliseconds do not follow from each other: past the random pool too', () => {
    // 600 ids over 600 milliseconds draw 9,600 random digits, more than one pool of them holds.
    const ids = Array.from({ length: 600 }, (_, i) => newId('txn', Date.UTC(2026, 10, 26) + i));
    const randomParts = ids.map((id) => id.slice(14));
    expect(new Set(randomParts).size).toBe(600);
    for (const id of ids) expect(id).toMatch(ID);
    // Each of the 32 digits turns up in the random parts: no digit is stuck (a pool read past its end).
    expect(new Set(randomParts.join('')).size).toBe(32);
  });
});
