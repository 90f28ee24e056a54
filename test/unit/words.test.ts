import { describe, expect, it } from 'vitest';
import { withArticle } from '../../src/domain/words.js';

describe('withArticle: the article as the word is said', () => {
  it.each([
    ['ACTIVE', 'an ACTIVE'],
    ['INCOMPLETE', 'an INCOMPLETE'],
    ['EXPIRED', 'an EXPIRED'],
    ['PAUSED', 'a PAUSED'],
    ['CANCELLED', 'a CANCELLED'],
    ['FAILED', 'a FAILED'],
    ['unspecified', 'an unspecified'],
    ['unique-local (fc00::/7)', 'a unique-local (fc00::/7)'],
    ['6to4 (2002::/16)', 'a 6to4 (2002::/16)'],
    ['loopback', 'a loopback'],
  ])('%s → %s', (word, expected) => {
    expect(withArticle(word)).toBe(expected);
  });
});
