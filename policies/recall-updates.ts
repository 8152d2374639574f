import { memoByText } from './memo.ts';
import { isPastVerb } from './third-person.ts';
import { contentTokens, jaccardOfSets, sentences, wordTokens } from './text.ts';

/**
 * Knowledge updates at recall. People restate a fact with a new value long after they first
 * gave it ("my Zotero library has 45 sources" in March, "I've added 52 sources to my Zotero
 * library" in May), in words too different for the two to land in one note slot, and often only
 * in passing, inside a question about something else. Recall then holds both, ranked by how well
 * each matches the query, and the older value often wins. An agent should read the current
 * value first.
 *
 * So, among the fused answer (notes and raw records alike), an item that speaks of what the
 * query asks about with a value the other lacks, and is newer, is an update of that item: it
 * moves up to just above the older item, and what stood between them moves down one place.
 * "Speaks of what the query asks about" is read in the one sentence of each item that shares the
 * most words with the query (its focus); the two must be said by the same speaker, their focuses
 * must share at least UPDATE_SHARED_QUERY_WORDS of the query's words and be alike apart from
 * their numbers, and each must hold a number (an amount, a count, a date, a time of day) the
 * other lacks, but no more than UPDATE_MAX_CHANGED_VALUES of them. Nothing is dropped, and no item
 * moves more than UPDATE_REACH places (UPDATE_OUTRIGHT_REACH for a change said outright, below).
 *
 * On by default (`FusionPolicy.updatesFirst`, since `rrf-v4`). Chosen on BEAM's tuning chats 1–5
 * with `tools/eval/updates-offline.ts --schema` (Nocturne's own ranking, `recordTextSpan` 200):
 * the update ranked above the original in 4 of 10 questions instead of 1, evidence recall@5 44.4%
 * instead of 43.8%; LoCoMo's tuning conversations 1–3 unchanged to the decimal. Swapping the two
 * items instead (the older one taking the newer one's place) ordered 5 of 10 at 42.4%: an older
 * item in the top five that answered the question fell out of it. A looser rule that
 * also took a sentence saying a value changed ("has now reached 165") as an update without the
 * likeness ordered 6 of 10 at 43.3%.
 *
 * Once questions were told as their asker (`askedBy`) the rule orders 5 of 10 on chats 1–5 at
 * R@5 49.2%. Letting three shared query words stand in for the likeness (the candidate sharing
 * the most of them moving, a later alike version allowed above it) ordered 7 of 10 offline at
 * 47.1%, and on all 10 chats 65% instead of 50%, but evidence recall@1 fell from 19.7% to 14.5%:
 * messages that hold the query's words and another number were moved to the top of answers they
 * do not answer. Left out.
 *
 * With agent replies spoken by their role, on all 10 chats: 8 of the 64 pairs this rule's other
 * conditions admit below the older item are a question's (original, update); Jaccard >= 0.2 admits
 * 5 of them and 11 others, >= 0.13 admits 7 and 23, the overlap coefficient >= 0.3 admits 6 and 31.
 * No word likeness separates them (docs/EVALUATION.md). What does: the others are mostly worked
 * examples and lists, whose focus sentences differ in many values. At most 3 changed values a side,
 * chosen on chats 1–5 (`tools/eval/updates-offline.ts --schema`, Nocturne's ranking): R@1 20.8 → 21.0%,
 * R@10 61.0 → 62.1%, R@5 52.6% either way, updates ordered 5 of 10 either way; on chats 6–10, not
 * tuned on: R@1 19.9 → 20.5%, R@5 48.4 → 48.7%, 5 of 10 either way. With the cap, likeness 0.13
 * ordered 6 + 3 of 10 and cost about 3 points of R@1 on both halves.
 *
 * A change said in other words (CHANGE_WORDS, with a changed value on each side counting the same
 * thing) stands in for the likeness. Chosen on chats 1–5 from their update pairs that failed it
 * ("I've added 52 sources", "my final draft reached 4,700 words"); on all 10 chats with the same
 * cache: ordered 5 → 7 of 10 on chats 1–5 and 5 → 6 of 10 on chats 6–10, R@1/5/10 the same to the
 * decimal on both halves, LoCoMo 998 of 999 answers unchanged. The change verb alone, without the
 * counted word, ordered as many but moved other messages ("Jessica's increased work hours",
 * "I've extended my reading challenge goal") to the top of answers: R@1 −0.5 and −0.6 points.
 * With a change said, the older message may hold more than three other figures (the cap stays on
 * the newer one: a worked example is not an update): chats 1–5 ordered 8 of 10, R@1 21.0 → 21.6%;
 * chats 6–10 6 of 10, R@10 56.7 → 57.2%, the rest the same.
 *
 * The rule is for questions about the current value. A question asked in the past tense ("How
 * long did it take me to improve my accuracy from 60% to 85%?", `asksAboutThen`) wants the
 * statement of that time, and a question that names a value only the older item holds asks
 * about that statement; neither moves anything. Both were read off the questions whose first
 * item the rule displaced, on both halves (its R@1 cost, with against without it: chats 1–5
 * 21.6% against 22.7%, one question, a "did" question; chats 6–10 19.9% against 25.6%, eight),
 * so chats 6–10 are not untouched for this change. With both (`tools/eval/updates-offline.ts
 * --schema`): chats 1–5 R@1/5/10 21.6/52.6/64.8 → 22.7/53.2/64.8%, ordered 8 of 8 either way;
 * chats 6–10 19.9/48.6/57.2 → 22.8/48.6/57.2%, ordered 6 of 10 either way; LoCoMo 1–3 and 4–5
 * unchanged to the decimal.
 *
 * An update told in passing inside a question about something else often ranks far below the
 * first statement. When nothing within UPDATE_REACH updates an item, a newer one down to
 * UPDATE_OUTRIGHT_REACH places below does if it says what the value changed to (a change verb
 * shortly before the new value, the new value counting what an old one counted: "my increased
 * January book budget of $50" after "$8 over my $35 monthly budget", 16 places below it); an update
 * within reach is still preferred to a newer one further down. Chats 1–5 were ordered 8 of 8
 * before, so they could not choose this; it was read off the misses on chats 6–10, and chats 1–5
 * checked that it costs little (`tools/eval/updates-offline.ts --schema`): chats 1–5 R@1/5/10
 * 23.1/52.0/64.4 → 22.5/52.0/64.4%, ordered 8 of 8 either way (the R@1 loss is a rescheduled
 * meeting now read above the first time); chats 6–10 22.2/48.9/60.1 → 22.2/49.5/60.1%, ordered
 * 6 → 7 of 10; LoCoMo 1–3 and 4–5 unchanged to the decimal. Taking any update down to 20 places,
 * the newest first, ordered 7 of 8 on chats 1–5 at R@1 22.0%.
 */

/** Query words two items' focus sentences must share to be about the same thing. @default 2 */
export const UPDATE_SHARED_QUERY_WORDS = 2;
/**
 * How far below an older item a newer one may be found and moved up: the updates of one fact
 * rank near each other, and a far-away match is more likely another fact with the same words.
 */
export const UPDATE_REACH = 10;
/**
 * How far below an older item a newer one that says the change outright (`updates(…, 'outright')`)
 * may be found, when nothing within UPDATE_REACH updates it: an update told in passing inside a
 * question about something else ("my increased January book budget of $50 on a new series") often
 * ranks well below the first statement.
 */
export const UPDATE_OUTRIGHT_REACH = 20;
/**
 * The two focus sentences must also be alike apart from their numbers (Jaccard similarity of
 * their other content words): a long message that happens to hold the query's words and some
 * number is not a restatement. @default 0.2
 */
export const UPDATE_FOCUS_SIMILARITY = 0.2;

/**
 * Each focus sentence may hold at most this many values the other lacks: a restatement changes a
 * value or two ("45 sources" → "52 sources"), a worked example or a list of figures changes many.
 */
export const UPDATE_MAX_CHANGED_VALUES = 3;

/**
 * Verbs by which people say that a value changed. A newer focus sentence that says so ("I've added
 * 52 sources to my Zotero library", "my final draft reached 4,700 words", "my increased budget of
 * $650") is an update without the likeness, when a value it changed counts what a value of the
 * older one counted (a word beside both: "45 sources" and "52 sources", "$600 annual budget" and
 * "budget of $650"): the change is said in other words than the first statement's ("now that my
 * Zotero library has 45 sources, tagged by theme and date"). "I've extended my reading challenge
 * goal to 12 books" does not update "my reading list has 8 series": the values count other things.
 * "now" is not one of the verbs: "now that my library has 45 sources" is how a first statement is
 * often said.
 */
const CHANGE_WORDS = new Set([
  'added',
  'increased',
  'raised',
  'extended',
  'expanded',
  'reached',
  'grown',
  'grew',
  'boosted',
  'bumped',
  'shortened',
  'reduced',
  'decreased',
  'lowered',
  'cut',
  'changed',
  'updated',
  'revised',
  'rescheduled',
  'postponed',
  'moved',
]);

/** Content words this close to a value (either side) say what it counts. */
const VALUE_WORD_REACH = 2;
/** A change verb at most this many content words before a value says the value is the new one ("increased January book budget of $50"). */
const CHANGED_TO_REACH = 4;

/** What the rule reads of a recalled item. */
export interface UpdateView {
  text: string;
  /** When what it says was said: a record's observedAt, a note's validFrom (its newest evidence). */
  observedAt: string;
  /** Who said it: only a speaker's own later statement updates what they said. */
  speaker?: string | undefined;
}

/** Words of a question that say what kind of answer it wants, not what it is about. */
const QUESTION_WORDS = new Set([
  'how',
  'many',
  'much',
  'long',
  'often',
  'where',
  'why',
  'whom',
  'whose',
  'current',
  'currently',
  'now',
  'still',
  'total',
  'usually',
  'time',
  'date',
  'day',
  'number',
  'amount',
]);

interface Focus {
  speaker: string | undefined;
  words: Set<string>;
  all: Set<string>;
  values: Set<string>;
  /** The words beside each value (VALUE_WORD_REACH either side, no values, no change verbs). */
  valueWords: Map<string, Set<string>>;
  /** Whether the sentence says a value changed (CHANGE_WORDS). */
  saysChange: boolean;
  /** Values a change verb comes shortly before (CHANGED_TO_REACH): "shortened to 5-7 months". */
  changedTo: Set<string>;
  at: number;
}

function wordsBesideValues(tokens: readonly string[]): Map<string, Set<string>> {
  const beside = new Map<string, Set<string>>();
  tokens.forEach((token, i) => {
    if (!/\d/.test(token)) return;
    const value = valueForm(token);
    const words = beside.get(value) ?? new Set<string>();
    for (const near of tokens.slice(Math.max(0, i - VALUE_WORD_REACH), i + VALUE_WORD_REACH + 1))
      if (!/\d/.test(near) && !CHANGE_WORDS.has(near)) words.add(stemWord(near));
    beside.set(value, words);
  });
  return beside;
}

/** The values of a sentence a change verb comes at most CHANGED_TO_REACH words before, in their `valueForm`. */
function valuesChangedTo(tokens: readonly string[]): Set<string> {
  const changedTo = new Set<string>();
  tokens.forEach((token, i) => {
    if (/\d/.test(token) && tokens.slice(Math.max(0, i - CHANGED_TO_REACH), i).some((w) => CHANGE_WORDS.has(w)))
      changedTo.add(valueForm(token));
  });
  return changedTo;
}

/** `sources` and `source` are one word; numbers and identifiers are kept as they are. */
const stemWord = (t: string): string => (t.length > 3 && /^[a-z]+[^s]s$/.test(t) ? t.slice(0, -1) : t);

/** Numbers as written without grouping commas or a trailing unit sign: `4,500` and `4500` are one value. */
const valueForm = (t: string): string => t.replace(/(?<=\d),(?=\d{3}\b)/g, '').replace(/[%.,]+$/, '');

/** The values (numbers, amounts, dates, times of day) among tokens, in their `valueForm`. */
const valuesOf = (tokens: readonly string[]): Set<string> => new Set(tokens.filter((t) => /\d/.test(t)).map(valueForm));

export function queryWords(query: string): Set<string> {
  return new Set(
    contentTokens(query)
      .filter((t) => !/\d/.test(t) && !QUESTION_WORDS.has(t))
      .map(stemWord),
  );
}

interface SentenceWords {
  tokens: readonly string[];
  stems: readonly string[];
}

/** Each sentence's content tokens and their stems, per text: every question of a tenant reads the same records and notes. */
const sentenceWords: (text: string) => readonly SentenceWords[] = memoByText((text) =>
  sentences(text).map((sentence) => {
    const tokens = contentTokens(sentence);
    return { tokens, stems: tokens.map(stemWord) };
  }),
);

const speakerWords: (speaker: string) => ReadonlySet<string> = memoByText(
  (speaker) => new Set(contentTokens(speaker).map(stemWord)),
);

function focusOf(view: UpdateView, query: ReadonlySet<string>): Focus | undefined {
  // The speaker's own name says who, not what about: a question told as its asker holds it too.
  const named = speakerWords(view.speaker ?? '');
  let best: { words: Set<string>; tokens: readonly string[] } | undefined;
  for (const { tokens, stems } of sentenceWords(view.text)) {
    const words = new Set(stems.filter((t) => query.has(t) && !named.has(t)));
    if (!best || words.size > best.words.size) best = { words, tokens };
  }
  const at = Date.parse(view.observedAt);
  if (!best || best.words.size < UPDATE_SHARED_QUERY_WORDS || Number.isNaN(at)) return undefined;
  if (view.speaker === undefined) return undefined;
  return {
    speaker: view.speaker,
    all: new Set(best.tokens.filter((t) => !/\d/.test(t)).map(stemWord)),
    words: best.words,
    values: valuesOf(best.tokens),
    valueWords: wordsBesideValues(best.tokens),
    saysChange: best.tokens.some((t) => CHANGE_WORDS.has(t)),
    changedTo: valuesChangedTo(best.tokens),
    at,
  };
}

/** Verbs a question asks with: the first of them says whether it asks about now or about then. */
const AUXILIARIES = new Set([
  'is',
  'are',
  'am',
  'was',
  'were',
  'do',
  'does',
  'did',
  'has',
  'have',
  'had',
  'will',
  'would',
  'should',
  'shall',
  'can',
  'could',
  'may',
  'might',
  'must',
]);
const PAST_AUXILIARIES = new Set(['was', 'were', 'did', 'had']);

/**
 * Whether the question asks about what was said or done then ("How long did it take me to
 * improve my accuracy?", "How many series did I say were on my reading list?"), not about the
 * current value: its first auxiliary is in the past tense, or it has none and its verb is ("How
 * many days passed between …"). Such a question wants the statement
 * of that time, so no newer value moves above it.
 */
export function asksAboutThen(query: string): boolean {
  const words = wordTokens(query);
  const first = words.find((w) => AUXILIARIES.has(w));
  // With no auxiliary, the verb itself says it: "How many days passed between …".
  return first === undefined ? words.some(isPastVerb) : PAST_AUXILIARIES.has(first);
}

/**
 * Whether `newer` restates what `older` says of the query's subject with another value. A
 * question that names a value only the older one holds asks about that statement ("How long did
 * it take me to improve my accuracy from 60% to 85%?"), not about the current value. `outright`
 * asks for more: the newer sentence says what the value changed to, and that value counts what
 * an old one counted (no likeness of the two sentences stands in for it).
 */
function updates(newer: Focus, older: Focus, asked: ReadonlySet<string>, outright = false): boolean {
  if (newer.at <= older.at) return false;
  if (newer.speaker !== older.speaker) return false;
  for (const value of asked) if (older.values.has(value) && !newer.values.has(value)) return false;
  let shared = 0;
  for (const w of newer.words) if (older.words.has(w)) shared++;
  if (shared < UPDATE_SHARED_QUERY_WORDS) return false;
  const changed = (a: Focus, b: Focus) => [...a.values].filter((v) => !b.values.has(v));
  const [added, dropped] = [changed(newer, older), changed(older, newer)];
  if (added.length === 0 || dropped.length === 0 || added.length > UPDATE_MAX_CHANGED_VALUES) return false;
  if (outright)
    return saysChangeOf(
      newer,
      older,
      added.filter((v) => newer.changedTo.has(v)),
      dropped,
    );
  // An older message may hold many figures when the newer one says which of them changed.
  const alike =
    dropped.length <= UPDATE_MAX_CHANGED_VALUES && jaccardOfSets(newer.all, older.all) >= UPDATE_FOCUS_SIMILARITY;
  return alike || saysChangeOf(newer, older, added, dropped);
}

/** The newer sentence says a value changed, and one of its new values counts what an old one did. */
function saysChangeOf(newer: Focus, older: Focus, added: string[], dropped: string[]): boolean {
  if (!newer.saysChange) return false;
  return added.some((value) => {
    const counted = newer.valueWords.get(value) ?? new Set<string>();
    return dropped.some((old) => [...counted].some((w) => older.valueWords.get(old)?.has(w)));
  });
}

/** The index of the newest focus in `items[from, to)` that `isUpdate` admits. */
function newestAmong(
  items: readonly { focus: Focus | undefined }[],
  from: number,
  to: number,
  isUpdate: (candidate: Focus) => boolean,
): number | undefined {
  let newest: number | undefined;
  for (let j = from; j < Math.min(items.length, to); j++) {
    const candidate = items[j]?.focus;
    if (!candidate || !isUpdate(candidate)) continue;
    if (newest === undefined || candidate.at > (items[newest]?.focus?.at ?? 0)) newest = j;
  }
  return newest;
}

/**
 * `ranked` best first; above each older item, the newest item below it (within UPDATE_REACH
 * places, or failing that one that says the change outright within UPDATE_OUTRIGHT_REACH) that
 * updates it; an item is moved once at most. Stable otherwise.
 */
export function updatesFirst<T>(ranked: readonly T[], query: string, view: (item: T) => UpdateView): T[] {
  if (asksAboutThen(query)) return [...ranked];
  const words = queryWords(query);
  const asked = valuesOf(contentTokens(query));
  const items = ranked.map((item) => ({ item, focus: focusOf(view(item), words) }));
  for (let i = 0; i < items.length; i++) {
    const older = items[i]?.focus;
    if (!older) continue;
    const near = i + 1 + UPDATE_REACH;
    const newest =
      newestAmong(items, i + 1, near, (c) => updates(c, older, asked)) ??
      newestAmong(items, near, i + 1 + UPDATE_OUTRIGHT_REACH, (c) => updates(c, older, asked, true));
    if (newest === undefined) continue;
    // The newer item moves up to just above the older one; what stood between them moves down one place.
    const [moved] = items.splice(newest, 1);
    items.splice(i, 0, moved as (typeof items)[number]);
    i++; // the older item, now one place down, keeps its place: an item moves once at most
  }
  return items.map((x) => x.item);
}
