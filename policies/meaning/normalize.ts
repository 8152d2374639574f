import type { RawRecord } from '../../src/contracts/raw-record.ts';
import { contentTokens, recordText } from '../text.ts';
import { memoByObject, memoByText } from '../memo.ts';

/**
 * Word forms in which a claim, a structure's value and the cited records compare: English
 * inflections folded ("seats" → "seat", "returned" → "return"), numbers canonical ("$1,299.00"
 * → "1299", "two" → "2"), a number's unit split off and named alike ("30s" and "30 seconds").
 * Units and currencies are optional when matching, so "$100", "100 dollars" and "100" agree.
 */

export interface Form {
  form: string;
  /** A unit or currency: it need not occur in the evidence when its number does. */
  optional: boolean;
}

const NUMBER_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
];

const UNITS: Record<string, string> = {
  $: 'dollar',
  usd: 'dollar',
  dollar: 'dollar',
  dollars: 'dollar',
  buck: 'dollar',
  bucks: 'dollar',
  '€': 'euro',
  eur: 'euro',
  euro: 'euro',
  euros: 'euro',
  '£': 'pound',
  gbp: 'pound',
  pound: 'pound',
  pounds: 'pound',
  cent: 'cent',
  cents: 'cent',
  ms: 'millisecond',
  millisecond: 'millisecond',
  milliseconds: 'millisecond',
  s: 'second',
  sec: 'second',
  secs: 'second',
  second: 'second',
  seconds: 'second',
  min: 'minute',
  mins: 'minute',
  minute: 'minute',
  minutes: 'minute',
  h: 'hour',
  hr: 'hour',
  hrs: 'hour',
  hour: 'hour',
  hours: 'hour',
  day: 'day',
  days: 'day',
  kb: 'kb',
  mb: 'mb',
  gb: 'gb',
  km: 'km',
  kg: 'kg',
  '%': 'percent',
  percent: 'percent',
  am: 'am',
  pm: 'pm',
};

/**
 * Contractions spelled out, so "hasn't" and "haven't", "I'd" and "she would" compare, and a
 * negation is a word of its own ("doesn't" → "does not").
 */
export function spellOut(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/\b(can)['’]t\b/giu, '$1 not')
    .replace(/\bwon['’]t\b/giu, 'will not')
    .replace(/\bcannot\b/giu, 'can not')
    .replace(/(\p{L})n['’]t\b/gu, '$1 not')
    .replace(/(\p{L})['’]d\b/gu, '$1 would')
    .replace(/(\p{L})['’]ll\b/gu, '$1 will')
    .replace(/(\p{L})['’]ve\b/gu, '$1 have')
    .replace(/(\p{L})['’]re\b/gu, '$1 are')
    .replace(/\b(i)['’]m\b/giu, '$1 am');
}

const AMOUNT = /^([$€£]?)(\d[\d,]*(?:\.\d+)?)([a-z%]*)$/;

/** The canonical decimal form of a number written with thousands separators or trailing zeros. */
export function canonicalNumber(digits: string): string {
  const n = Number(digits.replace(/,/g, ''));
  return Number.isFinite(n) ? String(n) : digits;
}

/** A light English stemmer: enough to fold plurals and verb endings, not a linguistic analysis. */
export function stem(word: string): string {
  if (/^[a-z][b-df-hj-np-rtv-z]s$/.test(word)) return word.slice(0, -1);
  if (!/^[a-z]+$/.test(word) || word.length < 4) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(ss|us|is)$/.test(w)) return w;
  else if (/^[a-z]{1,2}oes$/.test(w)) w = w.slice(0, -2);
  else if (/(s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s')) w = w.slice(0, -1);
  else if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && !w.endsWith('eed') && w.length > 4) w = undouble(w.slice(0, -2));
  return w.length > 3 && w.endsWith('e') ? w.slice(0, -1) : w;
}

function undouble(w: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;
}

/** The table as a Map: every token of every text is looked up here, and only the table's own keys count (not "constructor"). */
const UNIT_OF = new Map(Object.entries(UNITS));

/** The unit a word or symbol names. */
function unitOf(word: string): string | undefined {
  return UNIT_OF.get(word);
}

/**
 * The comparable forms of one token (an amount yields its number and, optionally, its unit); a
 * unit word right after a number (`100 dollars`) is optional too, elsewhere it is a word. The
 * result is shared: do not change it.
 */
export function formsOf(token: string, previous?: string): readonly Form[] {
  const unit = unitOf(token);
  if (unit && token.length > 2) return [{ form: unit, optional: previous !== undefined && AMOUNT.test(previous) }];
  return wordForms(token);
}

/**
 * The forms of a token that is not a unit word, remembered: every cited record's words pass
 * here in validation, and a tenant's vocabulary repeats far more than its texts do.
 */
const wordForms = memoByText((token: string): readonly Form[] => {
  const numberWord = NUMBER_WORDS.indexOf(token);
  if (numberWord >= 0) return [{ form: String(numberWord), optional: false }];
  const amount = AMOUNT.exec(token);
  if (amount) {
    const [, currency, digits, suffix] = amount as unknown as [string, string, string, string];
    const forms: Form[] = [{ form: canonicalNumber(digits), optional: false }];
    const unit = unitOf(currency || suffix);
    if (unit) forms.push({ form: unit, optional: true });
    else if (suffix) forms[0] = { form: `${canonicalNumber(digits)}${suffix}`, optional: false };
    return forms;
  }
  return [{ form: stem(token), optional: false }];
}, 50_000);

/**
 * The content tokens of a text with its numbers spelled out: what every comparison of words
 * starts from. Claims, values and record texts are compared many times in a batch, so the
 * tokens are remembered by text (shared: do not change the list).
 */
export const phraseTokens: (text: string) => readonly string[] = memoByText((text) => contentTokens(spellOut(text)));

/** The comparable forms of a text, in order. */
export function textForms(text: string): Form[] {
  const tokens = phraseTokens(text);
  return tokens.flatMap((t, i) => formsOf(t, tokens[i - 1]));
}

/**
 * Everything a text can be matched against: each token's forms, the parts of identifiers and
 * JSON fragments (`pageSize=1000` → `pagesize`, `1000`), and two adjacent words written as one
 * ("time out" → "timeout"), so a value's wording need not follow the record's spacing. The same
 * records are cited by several proposals of a batch, so the forms of a text are remembered
 * (shared: do not change the set).
 */
export const evidenceForms: (text: string) => ReadonlySet<string> = memoByText(formsOfText, 2048);

/** Forms to look a word up in: one text's (a Set), or several texts' at once (`unionOfForms`). */
export interface Forms {
  has(form: string): boolean;
}

/** The forms of several texts as one, without copying them into a new set. */
export function unionOfForms(sets: readonly Forms[]): Forms {
  if (sets.length === 1) return sets[0] as Forms;
  return { has: (form) => sets.some((s) => s.has(form)) };
}

/**
 * The forms of a record's text (`evidenceForms(recordText(r))`), kept with the record: the
 * records a batch cites are the same objects for every proposal citing them, so their text is
 * neither collected nor looked up by its (long) value again.
 */
export const recordForms: (record: RawRecord) => ReadonlySet<string> = memoByObject((record) =>
  evidenceForms(recordText(record)),
);

function formsOfText(text: string): ReadonlySet<string> {
  const tokens = phraseTokens(text);
  const out = new Set<string>();
  const add = (t: string) => {
    for (const f of formsOf(t)) out.add(f.form);
  };
  tokens.forEach((t, i) => {
    add(t);
    for (const part of t.split(/[^\p{L}\p{N}$€£]+/u)) if (part && part !== t) add(part);
    const next = tokens[i + 1];
    if (next && /^\p{L}+$/u.test(t) && /^\p{L}+$/u.test(next)) add(`${t}${next}`);
  });
  return out;
}

/**
 * The required forms of `phrase` that `evidence` lacks: an empty list means the phrase occurs
 * there modulo inflection, number format, units and compounding.
 */
export function missingForms(phrase: string, evidence: Forms): string[] {
  return missingTokens(phraseTokens(phrase), evidence).flatMap(({ token, previous }) =>
    formsOf(token, previous)
      .filter((f) => !f.optional && !evidence.has(f.form))
      .map((f) => f.form),
  );
}

/** The tokens of a phrase (in order) that `evidence` does not bear out, each with the token before it. */
export function missingTokens(
  tokens: readonly string[],
  evidence: Forms,
): Array<{ token: string; previous: string | undefined }> {
  const shown = (t: string, previous?: string) => formsOf(t, previous).every((f) => f.optional || evidence.has(f.form));
  const missing: Array<{ token: string; previous: string | undefined }> = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (shown(token, tokens[i - 1])) continue;
    const next = tokens[i + 1];
    // "times out" for "timeout": the first word's own ending may fall inside the compound.
    if (next && [`${token}${next}`, `${token.replace(/s$/, '')}${next}`].some((j) => evidence.has(stem(j)))) {
      i++;
      continue;
    }
    const parts = token.split(/[^\p{L}\p{N}$€£]+/u).filter((p) => p.length > 0);
    if (parts.length > 1 && parts.every((p) => shown(p))) continue;
    missing.push({ token, previous: tokens[i - 1] });
  }
  return missing;
}
