import { describe, expect, it } from 'vitest';
import { documentToken, newId, randomToken } from '../../src/domain/ids.js';

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

describe('random tokens', () => {
  it('are base64url of the bytes asked for, and never repeat across refills of the pool', () => {
    // 24 bytes each: 400 tokens take 9,600 bytes, past two 4 KiB pools.
    const tokens = Array.from({ length: 400 }, () => randomToken());
    for (const t of tokens) expect(Buffer.from(t, 'base64url')).toHaveLength(24);
    expect(new Set(tokens).size).toBe(400);
    expect(randomToken(5000)).toHaveLength(Math.ceil((5000 * 4) / 3));
  });
});

describe('document tokens', () => {
  it('are ten characters of time, then 24 random bytes in base64url', () => {
    const token = documentToken(Date.UTC(2026, 10, 28));
    expect(token).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}[A-Za-z0-9_-]{32}$/);
    expect(Buffer.from(token.slice(10), 'base64url')).toHaveLength(24);
  });

  it('made in a later millisecond sort after, so their unique index takes them at its end', () => {
    const start = Date.UTC(2026, 10, 28);
    const tokens = Array.from({ length: 500 }, (_, i) => documentToken(start + i));
    expect([...tokens].sort()).toEqual(tokens);
  });

  it('made in the same millisecond still differ, and by their random part alone', () => {
    const tokens = Array.from({ length: 500 }, () => documentToken(Date.UTC(2026, 10, 28)));
    expect(new Set(tokens.map((t) => t.slice(10))).size).toBe(500);
  });
});
