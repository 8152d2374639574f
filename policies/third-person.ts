/**
 * A speaker's first-person sentence rewritten in the third person with the speaker's name or id,
 * so a note reads the same to whoever recalls it ("I went …" → "Caroline went …", "my" →
 * "Caroline's", "I like" → "Caroline likes"). Only pronouns and the verb right after "I" change:
 * every content word (names, places, things) stays, so a search for them still finds the note.
 */

export interface Voices {
  /** Who said it: the record's `userId`. */
  speaker: string;
  /**
   * Who was addressed ("you"): the other person of a conversation, or the assistant. Unknown
   * when a record is read alone (the record index): second-person words then stay as written.
   */
  listener?: string | undefined;
}

/** Irregular past forms (regular ones end in -ed). */
const IRREGULAR_PAST = new Set(
  (
    'was were did had went saw made got took came felt found gave ' +
    'knew left met ran said thought told bought brought began became wrote heard kept lost paid sat spent stood ' +
    'taught understood won ate drove flew forgot grew held led meant rode sang sent slept spoke swam threw woke wore ' +
    'built caught chose drew drank fell fought hid hurt lay lit sold shot dug struck learnt dreamt burnt used'
  ).split(' '),
);
/** Verbs after "I" that stay as they are: past forms, modals. */
const UNCHANGED_AFTER_I = new Set([
  ...IRREGULAR_PAST,
  ...'would could should might must will can shall may'.split(' '),
]);

/** "retook", "rebuilt", "undid", "overslept": an irregular past behind a prefix is past too. */
const PAST_PREFIX = /^(?:re|un|over|under|out|mis|with)(?=[a-z]{3,}$)/;
const irregularPast = (word: string): boolean =>
  IRREGULAR_PAST.has(word) || (PAST_PREFIX.test(word) && IRREGULAR_PAST.has(word.replace(PAST_PREFIX, '')));

/** Whether a word is a verb's past form: "went", "painted"; not "need". */
export const isPastVerb = (word: string): boolean => irregularPast(word) || isPastForm(word);
/** Adverbs that may stand between "I" and its verb ("I really like"). */
const ADVERBS = new Set(
  'just really also always never still usually often sometimes actually even only totally definitely truly absolutely generally mostly rarely already ever recently finally'.split(
    ' ',
  ),
);
/** Verbs that end in -ly like an adverb: "I fly economy" → "flies", "I apply for" → "applies". */
const LY_VERBS = new Set('fly apply reply rely supply comply imply multiply ally bully rally tally'.split(' '));
const IRREGULAR_PRESENT: Record<string, string> = {
  am: 'is',
  have: 'has',
  do: 'does',
  go: 'goes',
  be: 'is',
  // Spoken contractions: "I wanna" → "wants to", never "wannas".
  wanna: 'wants to',
  gotta: 'has to',
};
/** Contractions of "I", "you", "we": what they expand to once the pronoun is a name. */
const CONTRACTED: Record<string, string> = {
  "i'm": 'is',
  "i've": 'has',
  "i'd": 'would',
  "i'll": 'will',
  "you're": 'is',
  "you've": 'has',
  "you'd": 'would',
  "you'll": 'will',
  "we're": 'are',
  "we've": 'have',
  "we'd": 'would',
  "we'll": 'will',
};

/** The third-person present of a verb: like → likes, go → goes, try → tries, have → has. */
export function thirdPersonVerb(verb: string): string {
  const lower = verb.toLowerCase();
  if (IRREGULAR_PRESENT[lower]) return IRREGULAR_PRESENT[lower];
  if (lower.endsWith("n't")) return lower === "don't" ? "doesn't" : lower === "haven't" ? "hasn't" : verb;
  if (/[^aeiou]y$/i.test(verb)) return `${verb.slice(0, -1)}ies`;
  if (/(s|sh|ch|x|z|o)$/i.test(verb)) return `${verb}es`;
  return `${verb}s`;
}

const possessive = (name: string) => (name.endsWith('s') ? `${name}'` : `${name}'s`);
const WORD = /[A-Za-z][A-Za-z']*|[^A-Za-z]+/g;

/**
 * "For me, I …" / "As for me I …" opening a clause: the lead only stresses the speaker the clause names next, and
 * told in the third person it would name them twice ("For Nate Nate just gets …").
 */
const FOR_ME_I = /(?<=^\s*|\b(?:and|but|so),?\s+)(?:as )?for me,?\s+(?=I\b)/gi;

/** Rewrites one sentence; text without first- or second-person words comes back unchanged. */
export function toThirdPerson(sentence: string, voices: Voices): string {
  const tokens = normalizeApostrophes(sentence).replace(FOR_ME_I, '').match(WORD) ?? [];
  const out: string[] = [];
  // Whether the speaker's present verb was made to agree and its clause goes on: a verb joined
  // to it by "and" agrees too ("I've got flat feet and need sneakers" → "… has got … and needs …").
  let agreed = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    const lower = token.toLowerCase();
    const previous = previousWord(tokens, i);
    if (lower === 'i') {
      if (previous !== undefined && Object.hasOwn(INVERTED_AUXILIARY, previous)) {
        // A question or an inversion ("did I say", "have I used"): the auxiliary agrees, the verb stays.
        agreeAuxiliary(out, previous);
        out.push(voices.speaker);
      } else {
        out.push(voices.speaker);
        if (!partOfCompoundSubject(tokens, i)) {
          const opensClause = startsClause(previous);
          i = agreeVerb(tokens, i, out);
          agreed = opensClause;
        }
      }
    } else if (voices.listener === undefined && /^you/.test(lower)) {
      out.push(token);
    } else if (lower in CONTRACTED) {
      const person = lower.startsWith('i') ? voices.speaker : lower.startsWith('we') ? we(voices) : voices.listener;
      out.push(`${person} ${CONTRACTED[lower]}`);
      agreed = (lower === "i'm" || lower === "i've") && startsClause(previous);
    } else if (agreed && joinedVerb(tokens, i, previous)) {
      out.push(JOINED_AUXILIARIES.get(lower) ?? thirdPersonVerb(token));
      agreed = false;
    } else if (lower === 'me' && startsCompound(tokens, i)) out.push(token);
    else if (lower === 'me' || lower === 'myself') out.push(voices.speaker);
    else if (lower === 'my' || lower === 'mine') out.push(possessive(voices.speaker));
    else if (lower === 'we' || lower === 'us' || lower === 'ourselves') out.push(we(voices));
    else if (lower === 'our' || lower === 'ours') out.push(possessive(voices.speaker));
    else if (lower === 'you' || lower === 'yourself') i = listener(tokens, i, out, voices.listener as string);
    else if (lower === 'your' || lower === 'yours') out.push(possessive(voices.listener as string));
    else out.push(token);
    if (agreed && ENDS_AGREEMENT.test(token) && !prepositionTo(tokens, i) && !objectOfVerb(lower, previous))
      agreed = false;
  }
  return out.join('');
}

/** "me-time", "a me-first attitude": a word the hyphen joins "me" to makes it part of a noun, not the speaker. */
const startsCompound = (tokens: readonly string[], i: number): boolean =>
  tokens[i + 1] === '-' && /^[a-z]/i.test(tokens[i + 2] ?? '');

/**
 * Common verbs that, after "and", continue the speaker's clause with a second verb. A closed
 * list: after "and" most words are not verbs ("a dog and cats"), and these are rarely nouns
 * there when a word follows.
 */
const JOINED_VERBS = new Set(
  'need want think like love hope feel know make get go try take enjoy prefer keep see find miss wish spend learn buy'.split(
    ' ',
  ),
);
/** Auxiliaries that go on the speaker's clause after "and" ("… has been busy and hasn't slept"), and their form after a name. */
const JOINED_AUXILIARIES = new Map([
  ["haven't", "hasn't"],
  ["don't", "doesn't"],
  ['am', 'is'],
]);

/** A common verb or auxiliary right after "and", followed by another word: the second verb of a clause. */
const joinedVerb = (tokens: readonly string[], i: number, previous: string | undefined): boolean =>
  previous === 'and' &&
  (JOINED_VERBS.has(tokens[i] as string) || JOINED_AUXILIARIES.has((tokens[i] as string).toLowerCase())) &&
  /^ +$/.test(tokens[i + 1] ?? '') &&
  /^[a-z]/i.test(tokens[i + 2] ?? '');

/**
 * What ends the reach of the speaker's verb: punctuation but a comma ("I love hiking, and need
 * boots" goes on), "to" and "gonna" (a verb after it is an infinitive's: "I want to rest and read"), a
 * modal (a verb after it is bare: "… people will recognise you and love the book"), another
 * subject, and words that start another clause.
 */
const ENDS_AGREEMENT =
  /^(?:[^A-Za-z]*[.;:!?()\u2013\u2014-][^A-Za-z]*|to|gonna|wanna|gotta|because|but|that|when|if|so|while|which|who|where|or|will|would|can|could|should|may|might|must|shall|won't|wouldn't|can't|couldn't|shouldn't|you|he|she|they|we|it|there|this|these|those|people|everyone)$/i;

/**
 * "it", "there", "this" … right after a word that is not "and"/"or" are the object of what
 * came before ("I liked it and want more"), not a clause's new subject ("… and it rains").
 */
const objectOfVerb = (lower: string, previous: string | undefined): boolean =>
  /^(?:it|there|this|these|those)$/.test(lower) && previous !== undefined && previous !== 'and' && previous !== 'or';

/**
 * "to" before a determiner is a preposition ("I'm going to the store and need milk"), not an
 * infinitive's, so the speaker's verb reaches past it.
 */
const prepositionTo = (tokens: readonly string[], i: number): boolean =>
  (tokens[i] as string).toLowerCase() === 'to' &&
  /^ +$/.test(tokens[i + 1] ?? '') &&
  /^(?:the|a|an|my|his|her|their|our|this|that|these|those)$/i.test(tokens[i + 2] ?? '');

/**
 * Whether "I" after `previous` (the word before it, undefined after punctuation or at the start)
 * is the subject of its sentence's clause, not of a clause inside another ("… remind me why I'm
 * chasing my dream and keep me pushing": "keep" is the outer clause's).
 */
const startsClause = (previous: string | undefined): boolean =>
  previous === undefined || /^(?:and|but|so|then|because|although|though|while|now|yeah|well|oh|also)$/.test(previous);

/** Whether a sentence speaks of its speaker (I, my, we, our …). */
export const FIRST_PERSON = /\b(i|i'm|i've|i'd|i'll|my|mine|me|myself|we|we're|we've|we'd|we'll|us|our|ours)\b/i;

const we = (voices: Voices) => `${voices.speaker} and others`;

/** After "I" (already written as the name): the verb agrees, past forms and modals stay. */
function agreeVerb(tokens: string[], i: number, out: string[]): number {
  let j = i + 1;
  while (j < tokens.length) {
    const token = tokens[j] as string;
    const lower = token.toLowerCase();
    if (/^\s+$/.test(token)) {
      out.push(token);
    } else if (ADVERBS.has(lower) || (/.ly$/.test(lower) && !LY_VERBS.has(lower))) {
      // "I recently flew", "I distinctly remember": an adverb in -ly is not the verb ("I fly" has one).
      out.push(token);
    } else if (!/^[a-z']+$/i.test(token) || UNCHANGED_AFTER_I.has(lower) || isPastVerb(lower)) {
      return j - 1;
    } else if (tokens[j + 1] === '-' && /^[a-z]+$/.test(tokens[j + 2] ?? '')) {
      // "I color-code my notes" → "color-codes", "I co-founded" stays: the last part agrees.
      const last = tokens[j + 2] as string;
      const agrees = lower === token && !UNCHANGED_AFTER_I.has(last) && !isPastVerb(last);
      out.push(token, '-', agrees ? thirdPersonVerb(last) : last);
      return j + 2;
    } else {
      out.push(lower === token ? thirdPersonVerb(token) : token);
      return j;
    }
    j++;
  }
  return j - 1;
}

/**
 * Auxiliaries that come before "I" in a question or an inversion, and their form before a name:
 * "do I" → "does Caroline", "am I" → "is Caroline"; "did", "can", "should" stay.
 */
const INVERTED_AUXILIARY: Record<string, string | undefined> = {
  do: 'does',
  "don't": "doesn't",
  have: 'has',
  "haven't": "hasn't",
  am: 'is',
  ...Object.fromEntries(
    "did didn't can can't could couldn't will won't would wouldn't should shouldn't shall may might must was wasn't"
      .split(' ')
      .map((w) => [w, undefined]),
  ),
};

/** Rewrites the auxiliary last written to `out` (keeping its capital) as it agrees with a name. */
function agreeAuxiliary(out: string[], auxiliary: string): void {
  const agreed = INVERTED_AUXILIARY[auxiliary];
  if (agreed === undefined) return;
  for (let j = out.length - 1; j >= 0; j--) {
    const token = out[j] as string;
    if (token.toLowerCase() !== auxiliary) continue;
    out[j] = /^[A-Z]/.test(token) ? agreed.charAt(0).toUpperCase() + agreed.slice(1) : agreed;
    return;
  }
}

/** "painted", "moved" are past; "need", "feed" are not. */
const isPastForm = (word: string) => word.length > 3 && word.endsWith('ed') && !word.endsWith('eed');

/** "you are" → "Melanie is"; "you" elsewhere → "Melanie". */
function listener(tokens: string[], i: number, out: string[], name: string): number {
  out.push(name);
  const space = tokens[i + 1];
  const next = tokens[i + 2]?.toLowerCase();
  const agreed = { are: 'is', were: 'was', have: 'has', "aren't": "isn't", "weren't": "wasn't" }[next ?? ''];
  if (space === ' ' && agreed) {
    out.push(' ', agreed);
    return i + 2;
  }
  return i;
}

const CLAUSE_VERB =
  /\b(i|we|you|they|he|she|is|are|was|were|am|be|been|has|have|had|do|does|did|will|would|can|could)\b|'(s|re|m|ve|ll|d)\b/i;

/**
 * "My kids and I painted" (no agreement) but "It's late, and I need …" or "My wife passed away and
 * I need …" (a new clause: agreement).
 */
function partOfCompoundSubject(tokens: readonly string[], i: number): boolean {
  const previous = previousWord(tokens, i);
  if (previous !== 'and' && previous !== 'or') return false;
  const beforeConjunction = tokens
    .slice(0, i)
    .join('')
    .replace(/\s*(and|or)\s*$/i, '');
  // A clause before "and" (a comma, a verb, an "I" of its own) makes "I" the subject of a new one.
  const hasVerb = beforeConjunction
    .split(/\s+/)
    .some((w) => UNCHANGED_AFTER_I.has(w.toLowerCase()) || isPastVerb(w.toLowerCase()));
  return !/[,;]\s*$/.test(beforeConjunction) && !CLAUSE_VERB.test(beforeConjunction) && !hasVerb;
}

function previousWord(tokens: readonly string[], i: number): string | undefined {
  for (let j = i - 1; j >= 0; j--) {
    const t = tokens[j] as string;
    if (/[A-Za-z]/.test(t)) return t.toLowerCase();
    if (!/^\s+$/.test(t)) return undefined;
  }
  return undefined;
}

const normalizeApostrophes = (text: string) => text.replace(/[\u2018\u2019]/g, "'");
