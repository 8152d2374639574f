/** Plain-text helpers shared by the similarity, support and injection rules. */

import { memoByText } from './memo.ts';

const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can did do does for from had has have i if in into is it its me my no not of on or our ' +
    'please so than that the their them then there these they this those to too us was we were what when which while who will with ' +
    'you your yours he she him her his hers himself herself itself myself yourself ourselves themselves ' +
    // what is left of "it's", "don't", "we'll", "they're", "I've", "I'm", "I'd"
    's t ll re ve m d'
  ).split(' '),
);

/**
 * A word, a number or an identifier in any script: letters and digits (with their combining
 * marks) joined by the punctuation identifiers, amounts and paths use, so `crm.export`,
 * `$1,299.00` and `u-dan` stay whole; a trailing dot or comma is sentence punctuation.
 */
const WORD = /[$€£]?[\p{L}\p{N}][\p{L}\p{M}\p{N}_.,:/$@-]*[\p{L}\p{M}\p{N}]|[\p{L}\p{N}][\p{M}]*/gu;

/** Scripts written without spaces between words: a run of them is split by a dictionary segmenter. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/** Every word token of `text` in order, lower-cased and NFKC-normalised, stopwords included. */
export function wordTokens(text: string): string[] {
  const normal = text.normalize('NFKC').toLowerCase();
  const raw = normal.match(WORD) ?? [];
  if (!UNSPACED.test(normal)) return raw;
  return raw.flatMap((t) => (UNSPACED.test(t) ? segmentWords(t) : [t]));
}

function segmentWords(run: string): string[] {
  return [...segmenter.segment(run)].filter((s) => s.isWordLike).map((s) => s.segment);
}

/**
 * Characters of Chinese and Japanese (Han, Hiragana, Katakana) that the database's full-text index
 * holds one by one (migration 0034): PostgreSQL's parser would keep a whole sentence written
 * without spaces as one word, which no query word equals. The migration's pattern names the same
 * code points.
 */
const FULL_TEXT_CHARACTER = /([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff])/g;

/**
 * A question's words as the full-text index holds them: lower-cased like its tokens, and Chinese
 * or Japanese split into characters ("座位" → "座 位"), which the index matches one by one.
 */
export function fullTextQuery(tokens: readonly string[]): string {
  return tokens.join(' ').replace(FULL_TEXT_CHARACTER, ' $1 ').replace(/\s+/g, ' ').trim();
}

/**
 * Word and number tokens, stopwords removed; keeps identifiers like `crm.export` and `$1,299.00`
 * whole. Remembered per text: recall tokenizes the same claims and records for every channel,
 * ranking step and question, and replay the same evidence for every proposal. The array is
 * shared between callers, so it is read-only.
 */
export const contentTokens: (text: string) => readonly string[] = memoByText(
  (text) => wordTokens(text).filter((t) => !STOPWORDS.has(t)),
  8192,
);

/**
 * An English word without its inflection: a plural or third-person -s, -ies, -ied, -ed, -ing, then
 * a doubled final consonant and a final e ("camped", "camping", "camps" → "camp"; "parties" →
 * "party"; "running" → "run"; "moved", "moving", "move" → "mov"). Only words of four or more
 * letters a–z change. Not a dictionary stemmer: it relates the inflections of one word, which is
 * what a question and the turn that answers it most often differ by ("Where has Melanie camped?",
 * "we went camping"), and nothing else. Remembered per word: recall stems the same candidates'
 * words for every question.
 */
export const inflectionStem: (token: string) => string = memoByText((token) => {
  if (!/^[a-z]{4,}$/.test(token)) return token;
  let w = token;
  if (/ie[sd]$/.test(w) && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/[^su]s$/.test(w) && !/is$/.test(w)) w = w.slice(0, -1);
  else if (/ing$/.test(w) && w.length > 5) w = w.slice(0, -3);
  else if (/ed$/.test(w) && w.length > 4) w = w.slice(0, -2);
  if (/([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  if (/[^e]e$/.test(w) && w.length > 3) w = w.slice(0, -1);
  return w;
}, 16384);

/** Whether a token is a function word that carries no claim of its own. */
export function isStopword(token: string): boolean {
  return STOPWORDS.has(token);
}

export function jaccard(a: readonly string[], b: readonly string[]): number {
  return jaccardOfSets(new Set(a), new Set(b));
}

/** `jaccard` of two token sets built once, for a caller comparing each with many others. */
export function jaccardOfSets(sa: ReadonlySet<string>, sb: ReadonlySet<string>): number {
  if (sa.size === 0 && sb.size === 0) return 1;
  let inter = 0;
  for (const t of sa) if (sb.has(t)) inter++;
  return inter / (sa.size + sb.size - inter);
}

/** Share of `part`'s distinct tokens that occur in `whole`. */
export function coverage(part: readonly string[], whole: readonly string[]): number {
  const sp = new Set(part);
  if (sp.size === 0) return 1;
  const sw = new Set(whole);
  let hit = 0;
  for (const t of sp) if (sw.has(t)) hit++;
  return hit / sp.size;
}

/** Text of a record for matching: its text plus the string leaves of its payload. */
export function recordText(record: { text?: string | undefined; payload?: unknown; outcome?: unknown }): string {
  const parts: string[] = [];
  if (record.text) parts.push(record.text);
  collectStrings(record.payload, parts);
  collectStrings(record.outcome, parts);
  return parts.join(' ');
}

function collectStrings(value: unknown, out: string[], depth = 0): void {
  if (depth > 6 || value == null) return;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    out.push(String(value));
  } else if (Array.isArray(value)) {
    for (const v of value) collectStrings(v, out, depth + 1);
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      collectStrings(v, out, depth + 1);
    }
  }
}

/** Splits prose into sentences (after a full stop of any script), keeping decimal numbers and dotted identifiers intact. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[\p{Lu}\p{Lo}"'(])|(?<=[。！？])\s*/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
