import { findTimeMentions, formatMention, placedTimeMentions, type TimeMention } from './dates.ts';
import type { NoteTime } from '../src/contracts/note-structure.ts';
import { isPastVerb } from './third-person.ts';

/**
 * A statement read into the fields of a note: relative time words replaced by the absolute day
 * they meant (against the record's `observedAt`), and a third-person sentence split into
 * subject, attribute (the verb) and value (the rest), with its polarity.
 */

/** Prepositions that already introduce a time ("since last year" → "since 2022", not "since in 2022"). */
const TIME_PREPOSITIONS = new Set([
  'on',
  'in',
  'since',
  'until',
  'till',
  'by',
  'before',
  'after',
  'from',
  'of',
  'during',
]);

/** The time preposition that ends `before` ("… since "), as written, if it ends with one. */
function timePrepositionBefore(before: string): string | undefined {
  const previous = /([A-Za-z]+)\s*$/.exec(before)?.[1];
  return previous && TIME_PREPOSITIONS.has(previous.toLowerCase()) ? previous : undefined;
}

/** A space left before punctuation where a word was taken out ("… a bad hike ." → "… a bad hike."). */
const closePunctuation = (text: string): string => text.replace(/\s+([,.!?])/g, '$1');

export interface AbsoluteText {
  text: string;
  /** The first time the text speaks of, with the words it was read from. */
  time?: NoteTime;
}

export interface AbsoluteOptions {
  /**
   * Leave a day named without its year ("on March 29") as written instead of completing it ("on
   * 29 March 2024"). For text matched against questions (the record index): people ask about a day
   * as they named it, and a year added to most records made them alike to the embedding model
   * (BEAM evidence recall@5 −1.0 point). A note, read long after, says the year.
   */
  keepDaysWithoutYear?: boolean;
}

/** Replaces every relative time word with its absolute form: "yesterday" → "on 7 May 2023". */
export function absoluteTimes(text: string, observedAt: string, opts: AbsoluteOptions = {}): AbsoluteText {
  const mentions = placedTimeMentions(text, observedAt);
  if (mentions.length === 0) return { text };
  let out = '';
  let from = 0;
  for (const m of mentions) {
    const at = m.index;
    const before = text.slice(from, at);
    from = at + m.text.length;
    if (isAbsolute(m) || (opts.keepDaysWithoutYear === true && isCalendarDay(m))) {
      out += before + m.text;
      continue;
    }
    const previous = timePrepositionBefore(before);
    // "Last week was wild" → "The week of … was wild": a time that is the subject takes no preposition.
    const isSubject = SUBJECT_OF_VERB.test(text.slice(from));
    const phrase = afterNumber(before, m)
      ? `${m.text}, ${m.at.getUTCFullYear()}`
      : absolutePhrase(m, isSubject || previous !== undefined);
    const startsSentence = /(^|[.!?]\s+)$/.test(out + before);
    out += before + (startsSentence ? phrase.charAt(0).toUpperCase() + phrase.slice(1) : phrase);
  }
  const first = mentions[0] as TimeMention;
  return { text: out + text.slice(from), time: { at: first.at.toISOString(), source: first.text } };
}

/** "recently" or "lately": a time before the day something was said, no day of its own. */
const VAGUE_RECENT_WORD = 'recently|lately';
/** The same word inside a clause "just" already dates: it says the same and goes. */
const RECENT_IN_CLAUSE = new RegExp(`\\s+(?:${VAGUE_RECENT_WORD})\\b`, 'i');

/** "just" before a past form: "… just started helping at a food drive". */
const JUST_PAST = /\bjust\s+([a-z]+)\b/i;

/**
 * An event told with "just" and no time word happened the day it was said: "John just started
 * helping at a food drive." said on 25 June 2023 → "John started helping at a food drive on 25
 * June 2023." A text that names a time, or no past form after "just", is returned as it was.
 */
export function datedJust(text: string, observedAt: string): AbsoluteText {
  const m = JUST_PAST.exec(text);
  if (!m || !isPastVerb((m[1] as string).toLowerCase()) || findTimeMentions(text, observedAt).length > 0)
    return { text };
  const day = formatMention({ at: new Date(observedAt), precision: 'day' });
  const cut = text.slice(0, m.index) + text.slice(m.index + m[0].length - (m[1] as string).length);
  // The day goes at the end of the clause "just" is in; a "recently" there says the same and goes.
  const stop = cut.slice(m.index).search(CLAUSE_END);
  const end = stop >= 0 ? m.index + stop : cut.length;
  const clause = cut.slice(0, end).replace(RECENT_IN_CLAUSE, '');
  return { text: `${clause} on ${day}${cut.slice(end)}`, time: { at: observedAt, source: 'just' } };
}

/** "recently", "lately" or "currently", with the comma of an opener: the only time word of "Recently, Caroline had …". */
const RECENTLY = new RegExp(`\\b(${VAGUE_RECENT_WORD}|currently)\\b,?\\s*`, 'i');

/** Words that start a sentence only because they stand first: not kept capitalised after an opener. */
const SENTENCE_OPENER = /^(?:The|A|An|It|This|That|These|Those|There|They|He|She|We|Our|His|Her|Their|Its)\b/;

/** What each of those words says of the day it was said on. */
const RECENT_PHRASES: Record<'recently' | 'lately' | 'currently', (day: string) => string> = {
  recently: (day) => `shortly before ${day}`,
  lately: (day) => `in the weeks before ${day}`,
  currently: (day) => `as of ${day}`,
};

/**
 * "Recently" names no day, but it was said on one: "Recently, Caroline had a bad hike." said on
 * 25 May 2023 → "Shortly before 25 May 2023, Caroline had a bad hike."; "lately" speaks of the
 * weeks up to that day; "currently" says what held as of that day, and says it first ("As of 27
 * May 2023, Jon is reading …"). A text that names a time is returned as it was.
 */
export function datedRecently(text: string, observedAt: string): AbsoluteText {
  const m = RECENTLY.exec(text);
  if (!m || findTimeMentions(text, observedAt).length > 0) return { text };
  const day = formatMention({ at: new Date(observedAt), precision: 'day' });
  const word = (m[1] as string).toLowerCase() as keyof typeof RECENT_PHRASES;
  const phrase = RECENT_PHRASES[word](day);
  const time: NoteTime = { at: observedAt, source: m[1] as string };
  const opener = `${phrase.charAt(0).toUpperCase()}${phrase.slice(1)}, `;
  if (m.index === 0) return { text: opener + closePunctuation(text.slice(m[0].length)), time };
  // "Jon is currently reading X and hoping …": the state holds as of that day, said first.
  if (word === 'currently') {
    const rest = closePunctuation(`${text.slice(0, m.index)}${text.slice(m.index + m[0].length)}`);
    return { text: opener + (SENTENCE_OPENER.test(rest) ? rest.charAt(0).toLowerCase() + rest.slice(1) : rest), time };
  }
  // Mid-sentence, only the word goes: a comma after it still ends its clause, and the day goes
  // there, not after a clause spliced on ("made some peach cobbler recently, it was great" →
  // "made some peach cobbler shortly before …, it was great").
  const before = text.slice(0, m.index).trimEnd();
  const after = text.slice(m.index + (m[1] as string).length).trimStart();
  const joined = after === '' || /^[,.!?;:]/.test(after) ? `${before}${after}` : `${before} ${after}`;
  // "… lately, and look at …": the word closed its clause where a comma follows it.
  const stop = after.startsWith(',') ? 0 : joined.slice(before.length).search(CLAUSE_END);
  const at = stop >= 0 ? before.length + stop : joined.length;
  return { text: `${joined.slice(0, at).replace(/[,\s]+$/, '')} ${phrase}${joined.slice(at)}`, time };
}

/**
 * A statement's time words made absolute against the day it was said: the times it names
 * (`absoluteTimes`), else "just" (`datedJust`), else "recently", "lately" or "currently"
 * (`datedRecently`). Beside a time its sentence names, "recently" or "lately" says less than that
 * time and goes: "customer-32 recently flew … on 10 May 2024" → "customer-32 flew … on 10 May 2024".
 */
export function datedStatement(text: string, observedAt: string): AbsoluteText {
  const resolved = absoluteTimes(text, observedAt);
  if (resolved.time) return { ...resolved, text: withoutVagueRecency(resolved.text, observedAt) };
  const just = datedJust(resolved.text, observedAt);
  if (just.time) return just;
  const recent = datedRecently(just.text, observedAt);
  return recent.time ? recent : datedOngoing(recent.text, observedAt);
}

/**
 * "Jon is expanding …", "Nate has been practicing …", "All Tim's hard work is paying off": the
 * statement opens with its subject (a name, or what a name has) and what is going on. Told a
 * month later without a day, it would read as still going on.
 */
const NAME = `(?:All\\s+)?[A-Z][\\w'-]*`;
const OWNED = `'s(?:\\s+[a-z][\\w-]*){1,3}`;
const ONGOING_ADVERB = '(?:just|still|also|really|now|actually|finally|even|always|slowly|busy)\\s+';
const ONGOING = new RegExp(
  `^(${NAME}(?:${OWNED})?)\\s+(?:is|are|(?:has|have)\\s+(?:${ONGOING_ADVERB})?been)\\s+(?:${ONGOING_ADVERB})?([a-z]+ing)\\b`,
);
/** "Gina's online clothes store is open": the state a thing of someone's is in. */
const STATE_OF_THING = new RegExp(`^(${NAME}${OWNED})\\s+(?:is|are)\\s+(?:(?:now|still|finally)\\s+)?([a-z]+)\\b`);

/** Words after "is" that say what something is like, or name a thing, rather than a state it is in. */
const NOT_GOING_ON = new Set(
  'amazing interesting exciting boring inspiring rewarding challenging relaxing annoying frustrating surprising charming loving caring amusing fascinating thrilling satisfying refreshing overwhelming calming fulfilling touching encouraging promising demanding disappointing embarrassing heartwarming worrying tiring exhausting stunning understanding something nothing everything anything thing a an the so very really such great awesome cool nice good beautiful important special'.split(
    ' ',
  ),
);

/** The `source` of a time `datedOngoing` gives: the day a state was told to hold, no word of the record. */
const AS_OF = 'as of';

/** How a statement that holds as of a day opens: "As of 3 April 2023, ". */
export const asOfOpener = (day: string): string => `As of ${day}, `;

/**
 * What is going on when a statement is said, or the state a thing is in then, holds as of that
 * day, and the note says it first: "Jon is expanding Jon's dance studio's social media presence"
 * said on 13 May 2023 → "As of 13 May 2023, Jon is expanding …"; "Gina's online clothes store is
 * open" → "As of …, Gina's online clothes store is open". Only a statement that names no time of
 * its own (the steps of `datedStatement` before this one found none).
 */
export function datedOngoing(text: string, observedAt: string): AbsoluteText {
  const m = ONGOING.exec(text) ?? STATE_OF_THING.exec(text);
  if (!m || NOT_GOING_ON.has(m[2] as string)) return { text };
  const day = formatMention({ at: new Date(observedAt), precision: 'day' });
  // "All Tim's hard work …" goes on after the opener in lower case; a name keeps its capital.
  const rest = text.startsWith('All ') ? `a${text.slice(1)}` : text;
  return { text: `${asOfOpener(day)}${rest}`, time: { at: observedAt, source: AS_OF } };
}

/**
 * Whether a time says on which day a state was told to hold ("currently", `datedOngoing`'s "as
 * of"), rather than when something happened.
 */
export function heldOnItsDay(time: NoteTime): boolean {
  const source = time.source?.toLowerCase();
  return source === AS_OF || source === 'currently';
}

/** "recently" or "lately", with the comma of an opener, wherever it stands. */
const VAGUE_RECENCY = new RegExp(`\\b(?:${VAGUE_RECENT_WORD})\\b,?\\s*`, 'gi');

function withoutVagueRecency(text: string, observedAt: string): string {
  return text
    .split(/(?<=[.!?])(\s+)/)
    .map((sentence) => {
      if (!placedTimeMentions(sentence, observedAt).some(isAbsolute)) return sentence;
      const cut = sentence.replace(VAGUE_RECENCY, '');
      // "Recently, Jon flew …" → "Jon flew …": the sentence still starts with a capital.
      return /^[a-z]/.test(cut) && /^[A-Z]/.test(sentence) ? cut.charAt(0).toUpperCase() + cut.slice(1) : cut;
    })
    .join('');
}

/** "I participated …", "Yesterday, we went …": the verb a first-person sentence tells its event with. */
const FIRST_PERSON_VERB = /^(?:[A-Za-z]+,?\s+){0,3}?(?:I|we)\s+(?:(?:also|then|finally|actually|even)\s+)?([a-z]+)\b/i;

/**
 * A past event told right after the sentence that set its time takes that time: "Last weekend I
 * did something new. I participated in a 5K charity run." → "… I participated in a 5K charity
 * run last weekend."; "Yesterday, I went to a fair … I got some possible leads" → "I got some
 * possible leads yesterday". People tell one outing in a run of sentences and name its time once.
 * Only the sentence just before counts, only a time before the day it was said (a past event
 * happened before it was told), and only a first-person sentence whose verb is in the past and
 * that names no time of its own ("just" and "recently" date it themselves). The time keeps its
 * words, so `absoluteTimes` later makes it absolute as it would have in its own sentence.
 */
export function withNarrativeTimes(sentences: readonly string[], observedAt: string): string[] {
  return sentences.map((sentence, i) => {
    const time = i > 0 ? pastTimeOf(sentences[i - 1] as string, observedAt) : undefined;
    if (!time) return sentence;
    const verb = FIRST_PERSON_VERB.exec(sentence);
    if (!verb || !isPastVerb((verb[1] as string).toLowerCase())) return sentence;
    if (JUST_PAST.test(sentence) || RECENTLY.test(sentence) || placedTimeMentions(sentence, observedAt).length > 0)
      return sentence;
    const from = verb.index + verb[0].length;
    // The time ends the event's clause, before a bracketed note of the transcript ("[shares a photo: …]").
    const stop = sentence.slice(from).search(CLAUSE_OR_BRACKET);
    const end = stop >= 0 ? from + stop : sentence.length;
    const head = /^(.*?)([.!?]*)$/s.exec(sentence.slice(0, end).trimEnd()) as RegExpExecArray;
    return `${head[1]} ${time}${head[2]}${sentence.slice(end)}`;
  });
}

/** The one time a sentence names, with the preposition before it, when it lies before the day it was said. */
function pastTimeOf(sentence: string, observedAt: string): string | undefined {
  const mentions = placedTimeMentions(sentence, observedAt);
  const m = mentions[0];
  if (mentions.length !== 1 || !m || m.at.getTime() >= Date.parse(observedAt)) return undefined;
  const previous = timePrepositionBefore(sentence.slice(0, m.index));
  const words = previous ? `${previous} ${m.text}` : m.text;
  return words.charAt(0).toLowerCase() + words.slice(1);
}

/**
 * Where a clause ends: a semicolon or a dash, a comma before a joining word or a pronoun that
 * starts another clause (", so …", ", it was …"), or the end of the sentence. A comma in a list
 * ("Paris, Rome, and Berlin") ends none.
 */
const CLAUSE_END =
  /[;:]|\s[-\u2013\u2014]\s|,\s+(?:(?:so|but|because|though|although|which|while|yet)\b|(?:and\s+)?(?:it|that|this|they|he|she|there)\b)|[.!?]+\s*$/i;
/** The same, or the start of a bracketed note of the transcript. */
const CLAUSE_OR_BRACKET = new RegExp(`${CLAUSE_END.source}|\\s*\\[`, 'i');

const SUBJECT_OF_VERB = /^\s+(was|is|has|had|were|will|seemed|felt)\b/i;
const isAbsolute = (m: TimeMention) =>
  /\d{4}/.test(m.text) && (m.precision !== 'day' || /[A-Za-z]{3}|\d{4}-\d{2}-\d{2}/.test(m.text));

/** "December 5": a date already, only its year missing; it takes the place of the words as they stand. */
const isCalendarDay = (m: TimeMention) => m.yearless === true;

/**
 * A day written month first right after a number ("Version 2 May 3"): turned day first, the two
 * numbers would run together ("Version 2 3 May 2024"), so it keeps its order and takes the year
 * after a comma ("Version 2 May 3, 2024").
 */
const afterNumber = (before: string, m: TimeMention) =>
  isCalendarDay(m) && /\d\s*$/.test(before) && /^[A-Za-z]/.test(m.text);

function absolutePhrase(m: TimeMention, hasPreposition: boolean): string {
  const date = formatMention(m);
  if (isCalendarDay(m)) return date;
  const weekend = /weekend/i.test(m.text);
  if (weekend) return `${hasPreposition ? '' : 'on '}the weekend of ${date}`;
  if (hasPreposition) return date;
  return m.precision === 'day' ? `on ${date}` : `in ${date}`;
}

export interface StatementParts {
  attribute: string;
  value: string;
  polarity: 'positive' | 'negative';
}

const AUXILIARIES = new Set(
  'is are was were has have had will would can could should might must may does did shall'.split(' '),
);
const NEGATED: Record<string, string> = {
  "can't": 'can',
  "won't": 'will',
  "don't": 'do',
  "doesn't": 'does',
  "didn't": 'did',
  "isn't": 'is',
  "aren't": 'are',
  "wasn't": 'was',
  "weren't": 'were',
  "hasn't": 'has',
  "haven't": 'have',
  "hadn't": 'had',
  "wouldn't": 'would',
  "couldn't": 'could',
  "shouldn't": 'should',
};
const ADVERBS = new Set(
  'just really also always never still usually often sometimes actually even finally recently'.split(' '),
);
const PARTICLES = new Set('to in at for with about on from into up out by as of'.split(' '));

/**
 * "Caroline went to a support group on 7 May 2023" → went to / a support group …; "Caroline
 * doesn't like horror films" → does like / horror films, negative. Undefined when the sentence
 * does not open with its subject and a verb.
 */
export function splitStatement(sentence: string, subject: string): StatementParts | undefined {
  if (!sentence.startsWith(`${subject} `)) return undefined;
  const words = sentence.slice(subject.length + 1).split(/\s+/);
  const attribute: string[] = [];
  let polarity: StatementParts['polarity'] = 'positive';
  let i = 0;
  while (i < words.length && ADVERBS.has(lower(words[i]))) attribute.push(words[i++] as string);
  const head = lower(words[i]);
  if (NEGATED[head] || AUXILIARIES.has(head)) {
    attribute.push(NEGATED[head] ?? head);
    if (NEGATED[head]) polarity = 'negative';
    i++;
    if (lower(words[i]) === 'not') {
      polarity = 'negative';
      i++;
    }
    while (i < words.length && (ADVERBS.has(lower(words[i])) || /^(been|going|gonna|able)$/.test(lower(words[i]))))
      attribute.push(words[i++] as string);
    if (/^(do|does|did)$/.test(attribute.at(-1) ?? '') && i < words.length) attribute.push(words[i++] as string);
    else if (/(ing|ed)$/.test(lower(words[i])) && i < words.length - 1) attribute.push(words[i++] as string);
  } else if (/^[a-z]+$/.test(head)) {
    attribute.push(words[i++] as string);
  } else return undefined;
  if (PARTICLES.has(lower(words[i])) && i < words.length - 1) attribute.push(words[i++] as string);
  const value = words.slice(i).join(' ').trim();
  return value.length > 0 ? { attribute: attribute.join(' '), value, polarity } : undefined;
}

/** Past forms that tell a state, a wish or an ability ("Caroline loved the book"), not an event of one day. */
const STATE_PAST = new Set(
  'was were had did could would should might must used loved liked hated disliked wanted needed thought knew felt seemed hoped wished meant believed preferred'.split(
    ' ',
  ),
);
/** Adverbs that make a past verb a habit ("always walked"), not one event. */
const HABITUAL = new Set('always never usually often sometimes'.split(' '));
/** A time of life or a habit named in words a day cannot bound: "as a kid", "when Maria was younger", "every week". */
const LIFE_OR_HABIT =
  /\b(?:as an? (?:kid|child|teen(?:ager)?|boy|girl|student)|when \S+ (?:was|were)|growing up|back (?:then|in)|in (?:high |middle |elementary )?school|in college|at (?:the )?age|childhood|younger|every|each (?:day|week|month|year|morning|evening|night|time)|whenever)\b/i;

/**
 * Whether a statement tells one past event with no time of its own ("Maria bought a cross
 * necklace", "John lost John's job"): it happened on or before the day it was told, and a note
 * can say that much (`NoteTime.by`). Left out: a past state or wish ("loved", "wanted to"), a
 * habit ("always walked", "every week") and a time of life ("as a kid"), which that day does
 * not bound in any useful way. Called on a statement that names no time.
 */
export function tellsPastEvent(parts: Pick<StatementParts, 'attribute' | 'value'>): boolean {
  const words = parts.attribute.toLowerCase().split(' ');
  if (words.some((w) => HABITUAL.has(w))) return false;
  const verb = words.find((w) => !ADVERBS.has(w));
  return verb !== undefined && isPastVerb(verb) && !STATE_PAST.has(verb) && !LIFE_OR_HABIT.test(parts.value);
}

/** Attributes a subject holds one value of at a time (where someone lives or works). */
export const EXCLUSIVE_ATTRIBUTES = /^(lives in|lives at|works at|works as|works for|moved to|is based in)$/i;

const lower = (word: string | undefined) => (word ?? '').toLowerCase();
