/**
 * "an ACTIVE subscription", "a PAUSED subscription": messages name statuses and ranges that are
 * filled in at run time, so the article is chosen by how the word is said. A vowel letter says a
 * vowel except in words said with a "you" or "wun" sound (unique, user, one); a word starting
 * with a digit is said as its number ("an 8-bit", "a 6to4").
 */
const YOU_SOUND = /^(uni(?!n)|use|usu|uti|eu|one\b|once\b)/i;
const VOWEL_DIGIT = /^(8|11|18)/;

export function withArticle(word: string): string {
  const vowel = /^[aeiou]/i.test(word) ? !YOU_SOUND.test(word) : VOWEL_DIGIT.test(word);
  return `${vowel ? 'an' : 'a'} ${word}`;
}
