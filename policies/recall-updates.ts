import { contentTokens, sentences } from './text.ts';

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
 * takes the older item's place and the older one follows it. "Speaks of what the query asks
 * about" is read in the one sentence of each item that shares the most words with the query
 * (its focus); the two focuses must share at least UPDATE_SHARED_QUERY_WORDS of the query's
 * words, and each must hold a number (an amount, a count, a date, a time of day) the other
 * focus lacks. Nothing is dropped: the older value stays in the answer, one place lower.
 */

/** Query words two items' focus sentences must share to be about the same thing. @default 2 */
export const UPDATE_SHARED_QUERY_WORDS = 2;
/**
 * How far below an older item a newer one may be found and moved up: the updates of one fact
 * rank near each other, and a far-away match is more likely another fact with the same words.
 * @default 20
 */
export const UPDATE_REACH = 20;

/** What the rule reads of a recalled item. */
export interface UpdateView {
  text: string;
  /** When what it says was said: a record's observedAt, a note's validFrom (its newest evidence). */
  observedAt: string;
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
  words: Set<string>;
  values: Set<string>;
  at: number;
}

/** `sources` and `source` are one word; numbers and identifiers are kept as they are. */
const stemWord = (t: string): string => (t.length > 3 && /^[a-z]+[^s]s$/.test(t) ? t.slice(0, -1) : t);

/** Numbers as written without grouping commas or a trailing unit sign: `4,500` and `4500` are one value. */
const valueForm = (t: string): string => t.replace(/(?<=\d),(?=\d{3}\b)/g, '').replace(/[%.,]+$/, '');

export function queryWords(query: string): Set<string> {
  return new Set(
    contentTokens(query)
      .filter((t) => !/\d/.test(t) && !QUESTION_WORDS.has(t))
      .map(stemWord),
  );
}

function focusOf(view: UpdateView, query: ReadonlySet<string>): Focus | undefined {
  let best: { words: Set<string>; tokens: string[] } | undefined;
  for (const sentence of sentences(view.text)) {
    const tokens = contentTokens(sentence);
    const words = new Set(tokens.map(stemWord).filter((t) => query.has(t)));
    if (!best || words.size > best.words.size) best = { words, tokens };
  }
  const at = Date.parse(view.observedAt);
  if (!best || best.words.size < UPDATE_SHARED_QUERY_WORDS || Number.isNaN(at)) return undefined;
  return { words: best.words, values: new Set(best.tokens.filter((t) => /\d/.test(t)).map(valueForm)), at };
}

/** Whether `newer` restates what `older` says of the query's subject with another value. */
function updates(newer: Focus, older: Focus): boolean {
  if (newer.at <= older.at) return false;
  let shared = 0;
  for (const w of newer.words) if (older.words.has(w)) shared++;
  if (shared < UPDATE_SHARED_QUERY_WORDS) return false;
  const lacks = (a: Focus, b: Focus) => [...a.values].some((v) => !b.values.has(v));
  return lacks(newer, older) && lacks(older, newer);
}

/**
 * `ranked` best first, with newer updates moved just above the items they update. Stable
 * otherwise; each move puts a strictly newer item first, so the newest value of a fact ends on
 * top whatever order its versions came in.
 */
export function updatesFirst<T>(ranked: readonly T[], query: string, view: (item: T) => UpdateView): T[] {
  const words = queryWords(query);
  const items = ranked.map((item) => ({ item, focus: focusOf(view(item), words) }));
  for (let i = 0; i < items.length; i++) {
    const older = items[i]?.focus;
    if (!older) continue;
    let newest: number | undefined;
    for (let j = i + 1; j < Math.min(items.length, i + 1 + UPDATE_REACH); j++) {
      const candidate = items[j]?.focus;
      if (
        candidate &&
        updates(candidate, older) &&
        (newest === undefined || candidate.at > (items[newest]?.focus?.at ?? 0))
      )
        newest = j;
    }
    if (newest === undefined) continue;
    const [moved] = items.splice(newest, 1);
    items.splice(i, 0, moved as (typeof items)[number]);
    i--; // the moved item may itself have a newer update further down
  }
  return items.map((x) => x.item);
}
