/**
 * The forms in which text is screened for instructions. An attacker hides an instruction from a
 * plain pattern with compatibility characters (full-width letters), invisible characters inside a
 * word, look-alike letters from other scripts, digits for letters or spaces between letters; each
 * form below undoes some of that, and a pattern that matches any form counts.
 */

/** Zero-width, joiner, bidi-control, variation-selector and tag characters: invisible when rendered. */
const INVISIBLE =
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\u{E0000}-\u{E007F}]/gu;

/** Cyrillic and Greek letters that render like Latin ones. */
const LOOKALIKES: Readonly<Record<string, string>> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ɡ: 'g',
  ı: 'i',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
};

/** Digits and symbols written for letters ("1gn0re"). */
const LEET: Readonly<Record<string, string>> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '8': 'b',
  '@': 'a',
  $: 's',
  '!': 'i',
  '|': 'l',
};

/** NFKC, invisible characters removed, look-alikes folded, accents dropped, lower case (spacing kept). */
export function foldForScreening(text: string): string {
  const lowered = text.normalize('NFKC').replace(INVISIBLE, '').toLowerCase();
  const latin = [...lowered].map((c) => LOOKALIKES[c] ?? c).join('');
  return latin.replace(/ß/g, 'ss').normalize('NFD').replace(/\p{M}/gu, '');
}

const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Digits and symbols inside a word read as the letters they stand for. */
export function unLeet(folded: string): string {
  return folded.replace(/[\p{L}0-9@$!|]+/gu, (word) =>
    /\p{L}/u.test(word) ? [...word].map((c) => LEET[c] ?? c).join('') : word,
  );
}

/**
 * Letters set apart by one space, dot or dash ("i g n o r e  a l l", "i.g.n.o.r.e") joined back
 * into words; a wider gap stays a word break.
 */
export function unSpace(folded: string): string {
  return folded.replace(/(?<!\p{L})\p{L}(?:[ ._*-]\p{L}(?!\p{L})){2,}/gu, (run) => run.replace(/[ ._*-]/g, ''));
}

/** Letters only: what is left when every separator between them is taken out. */
export function squash(folded: string): string {
  return [...folded]
    .map((c) => LEET[c] ?? c)
    .join('')
    .replace(/[^\p{L}]/gu, '');
}

/** Every form the word patterns are tried on, without repeats. */
export function screeningForms(text: string): string[] {
  const folded = foldForScreening(text);
  const leet = unLeet(folded);
  return [...new Set([folded, leet, unSpace(folded), unSpace(leet)].map(collapse))];
}
