import { describe, expect, it } from 'vitest';
import { contentTokens, fullTextQuery, inflectionStem, sentences } from '../../../policies/text.ts';

describe('contentTokens', () => {
  it.each([
    ['Herr Müller bevorzugt Überweisungen', ['herr', 'müller', 'bevorzugt', 'überweisungen']],
    ['Ça coûte 12 €, señor', ['ça', 'coûte', '12', 'señor']],
    ['Привет, мир', ['привет', 'мир']],
    ['नमस्ते दुनिया', ['नमस्ते', 'दुनिया']],
    // Full-width letters and digits fold to their plain forms (NFKC).
    ['ＡＢＣ ｆｉｌｅ １２３', ['abc', 'file', '123']],
  ])('%s → words of any alphabet', (text, tokens) => {
    expect(contentTokens(text)).toEqual(tokens);
  });

  it.each([
    ['我喜欢靠窗的座位', ['喜欢', '靠窗', '座位']],
    ['東京で寿司を食べました', ['東京', '寿司']],
    ['ฉันชอบที่นั่งริมหน้าต่าง', ['ชอบ', 'หน้าต่าง']],
  ])('%s → words of a script written without spaces', (text, expected) => {
    const tokens = contentTokens(text);
    expect(tokens).toEqual(expect.arrayContaining(expected));
    // Segmented into words, not kept as one run nor cut into single characters only.
    expect(tokens.length).toBeGreaterThan(2);
    expect(tokens).not.toContain(text);
  });

  it('keeps identifiers, amounts and ids whole, and drops stopwords and trailing punctuation', () => {
    expect(contentTokens('Export via crm.export: the total is $1,299.00, for u-dan.')).toEqual([
      'export',
      'via',
      'crm.export',
      'total',
      '$1,299.00',
      'u-dan',
    ]);
  });

  it('splits JSON arguments into their keys and values', () => {
    expect(contentTokens('{"pageSize":200} pageSize=1000')).toEqual(['pagesize', '200', 'pagesize', '1000']);
  });
});

describe('fullTextQuery: a question as the full-text index holds words', () => {
  it.each([
    ['aisle seats', 'aisle seats'],
    ['Überweisungen nach Москва', 'überweisungen nach москва'],
    // Chinese and Japanese stand character by character, also beside Latin words.
    ['靠过道的座位', '靠 过 道 的 座 位'],
    ['通路側の席 aisle', '通 路 側 の 席 aisle'],
    // Korean is written with spaces: its words stay whole.
    ['통로 좌석', '통로 좌석'],
  ])('%s → %s', (question, expected) => {
    expect(fullTextQuery(contentTokens(question))).toBe(expected);
  });
});

describe('sentences', () => {
  it('splits before capitals of any alphabet and after CJK full stops', () => {
    expect(sentences('Das ist gut. Über alles! 我喜欢。你好')).toEqual([
      'Das ist gut.',
      'Über alles!',
      '我喜欢。',
      '你好',
    ]);
  });

  it('keeps decimal numbers and dotted identifiers inside a sentence', () => {
    expect(sentences('The total is $1,299.00 via crm.export. Next one.')).toEqual([
      'The total is $1,299.00 via crm.export.',
      'Next one.',
    ]);
  });
});

describe('inflectionStem: the inflections of one English word meet', () => {
  it.each<[string[], string]>([
    [['camped', 'camping', 'camps', 'camp'], 'camp'],
    [['painted', 'painting', 'paints', 'paint'], 'paint'],
    [['parties', 'party'], 'party'],
    [['tried', 'tries'], 'try'],
    [['running', 'runs', 'run'], 'run'],
    [['moved', 'moving', 'moves', 'move'], 'mov'],
    [['kids', 'kid'], 'kid'],
  ])('%j → %s', (words, stem) => {
    for (const word of words) expect(inflectionStem(word), word).toBe(stem);
  });

  it.each(['bus', 'glass', 'analysis', 'focus', 'crm.export', 'u-dan', '4,500', 'überweisungen', 'Camped'])(
    'leaves %s as it is (short, not a plural, not a–z, or not lower case)',
    (word) => {
      expect(inflectionStem(word)).toBe(word);
    },
  );
});
