import { describe, expect, it } from 'vitest';
import { diffWords, MAX_DIFF_WORDS, type DiffPart } from '../../../src/inspector/word-diff.ts';

const shown = (parts: DiffPart[]) =>
  parts.map((p) => (p.op === 'same' ? p.text : `${p.op === 'removed' ? '-' : '+'}[${p.text}]`)).join('');

describe('diffWords', () => {
  it.each([
    ['same text', 'amounts are in cents', 'amounts are in cents', 'amounts are in cents'],
    ['one word changed', 'amounts are in cents.', 'amounts are in dollars.', 'amounts are in -[cents.]+[dollars.]'],
    [
      'a word added',
      'the API returns amounts',
      'the billing API returns amounts',
      'the +[billing ]API returns amounts',
    ],
    ['a phrase removed', 'runs on Fridays at noon', 'runs on Fridays', 'runs on Fridays-[at noon]'],
    ['from nothing', '', 'new claim', '+[new claim]'],
    ['to nothing', 'old claim', '', '-[old claim]'],
  ])('%s', (_, before, after, expected) => {
    expect(shown(diffWords(before, after))).toBe(expected);
  });

  it('the kept and added parts spell the new text; the kept and removed parts spell the old words', () => {
    const before = 'The billing API returns amounts in cents for every invoice.';
    const after = 'The billing API v2 returns amounts in dollars for each invoice.';
    const parts = diffWords(before, after);
    expect(
      parts
        .filter((p) => p.op !== 'removed')
        .map((p) => p.text)
        .join(''),
    ).toBe(after);
    expect(
      parts
        .filter((p) => p.op !== 'added')
        .map((p) => p.text.trim())
        .join(' ')
        .split(/\s+/),
    ).toEqual(before.split(' '));
  });

  it('replaces very long texts whole instead of building a huge table', () => {
    const long = Array.from({ length: MAX_DIFF_WORDS + 1 }, (_, i) => `w${i}`).join(' ');
    expect(diffWords(long, 'short').map((p) => p.op)).toEqual(['removed', 'added']);
  });
});
