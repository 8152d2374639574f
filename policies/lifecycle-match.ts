import type { NoteContent } from '../src/contracts/note.ts';
import { normalizePhrase, slotKey, type NoteStructure, type NoteTime } from '../src/contracts/note-structure.ts';
import { memoByText } from './memo.ts';
import { heldOnItsDay } from './statements.ts';
import { contentTokens, jaccard } from './text.ts';

/**
 * How a new note relates to one already known in its scope and kind: it says the same thing
 * (`restates`: reinforce the known one), it says something the known one cannot also be true
 * with (`contradicts`: the conflict rule picks the loser), or both can stand (`unrelated`).
 */
export type Relation = 'restates' | 'contradicts' | 'unrelated';

/** Claims this similar in words are the same claim, whatever else differs. @default 0.8 */
export const NEAR_DUPLICATE_SIMILARITY = 0.8;
/** Facts, constraints or preferences this similar but not restatements are about the same thing and disagree. @default 0.25 */
export const CONFLICT_SIMILARITY = 0.25;
/**
 * Two things a user said in conversation overlap in words far more often than two corrections
 * do without disagreeing ("I went camping" / "camping with my kids"), so statements need this
 * much more overlap before one supersedes the other. @default 0.5
 */
export const STATEMENT_CONFLICT_SIMILARITY = 0.5;
/**
 * A rewording keeps the lesson's words and changes the verbs around them ("the billing API
 * returns cents" / "gives amounts in cents"): when this share of the shorter claim's words occurs
 * in the longer one, with the same negation, the two are one claim. @default 0.8
 */
export const RESTATEMENT_OVERLAP = 0.8;
/** ...provided the two also share this much overall, so a short claim inside a long, different one is not taken for it. @default 0.5 */
export const RESTATEMENT_MIN_SIMILARITY = 0.5;

/** Words that turn what follows around; the text tokenizer drops `no` and `not` as stopwords, so they are looked for here. */
const NEGATION = /\b(?:no|not|never|none|cannot|without|\w+n't)\b([^,;.!?]*)/gi;
/** Content words after a negation that it applies to ("does not return amounts" negates `return` and `amount`). @default 2 */
export const NEGATED_WORDS = 2;

/**
 * `freshEvidence`: the text of the records the fresh note cites (absent: not known, and the
 * check that needs it is skipped).
 */
export function relate(fresh: NoteContent, known: NoteContent, freshEvidence?: string): Relation {
  if (fresh.structure && known.structure && !correctionAcrossSlots(fresh, known)) {
    const bySlot = relateBySlot(fresh.structure, known.structure);
    return bySlot === 'unrelated' && reordered(fresh, known) ? 'restates' : bySlot;
  }
  return relateByWords(fresh, known, freshEvidence);
}

/**
 * A correction answers what the agent just said in the user's words ("amounts are already in
 * dollars" against "the billing API returns amounts in cents"), so its subject and attribute
 * rarely parse into the slot of the note it corrects: across slots it is compared by words.
 */
function correctionAcrossSlots(fresh: NoteContent, known: NoteContent): boolean {
  return (
    fresh.sourceKind === 'user_correction' &&
    slotKey(fresh.structure as NoteStructure) !== slotKey(known.structure as NoteStructure)
  );
}

/** A value's compared form, per value: recall relates every pair of candidate notes of a slot. */
const valueForm: (value: string) => string = memoByText(normalizePhrase);

/**
 * Same slot (subject, attribute, conditions): the same value and polarity reinforce whatever the
 * wording; the opposite polarity of the same value contradicts; another value contradicts only
 * when the attribute holds one value at a time. Two dated events of a slot that accumulates
 * values (places someone went to) are two notes even with the same value.
 */
export function relateBySlot(a: NoteStructure, b: NoteStructure): Relation {
  if (slotKey(a) !== slotKey(b)) return 'unrelated';
  const exclusive = a.exclusive === true || b.exclusive === true;
  const sameValue = valueForm(a.value) === valueForm(b.value);
  if (!sameValue) return exclusive ? 'contradicts' : 'unrelated';
  if ((a.polarity ?? 'positive') !== (b.polarity ?? 'positive')) return 'contradicts';
  if (!exclusive && differentDays(eventDay(a.time), eventDay(b.time))) return 'unrelated';
  return 'restates';
}

/**
 * The same words in another order parse into another slot ("customer-14's user ID is chen_lee_6825,
 * and the reservation ID is YAX4DR" / "customer-14's reservation ID is YAX4DR, and the user ID is
 * chen_lee_6825"): nearly the same words, the same numbers, the same negation and the same day
 * are one claim.
 */
function reordered(fresh: NoteContent, known: NoteContent): boolean {
  const a = claimWords(fresh.claim);
  const b = claimWords(known.claim);
  return (
    jaccard(a, b) >= NEAR_DUPLICATE_SIMILARITY &&
    !otherNumbers(a, b) &&
    !negationFlips(fresh.claim, known.claim) &&
    !differentDays(eventDay(fresh.structure?.time), eventDay(known.structure?.time))
  );
}

/**
 * Notes without a structure compare by words. A restatement (nearly the same words, or a
 * rewording that keeps the shorter claim's words) reinforces; the same words with one claim
 * negated contradict; enough shared words in a kind that can conflict contradict as before.
 */
export function relateByWords(fresh: NoteContent, known: NoteContent, freshEvidence?: string): Relation {
  const a = claimWords(fresh.claim);
  const b = claimWords(known.claim);
  const similarity = jaccard(a, b);
  const canConflict = CONFLICTING_KINDS.has(fresh.kind);
  const restated =
    !otherNumbers(a, b) &&
    (similarity >= NEAR_DUPLICATE_SIMILARITY ||
      (overlap(a, b) >= RESTATEMENT_OVERLAP && similarity >= RESTATEMENT_MIN_SIMILARITY));
  if (restated) return canConflict && negationFlips(fresh.claim, known.claim) ? 'contradicts' : 'restates';
  if (!canConflict || similarity < conflictThreshold(fresh, known)) return 'unrelated';
  return correctionAddresses(fresh, b, a, freshEvidence) ? 'contradicts' : 'unrelated';
}

/**
 * A correction answers what the agent had just said, so it corrects an older note only when
 * its records speak of what that note says and the correction does not: "refunds are already
 * in dollars", said after a refund total, shares words with "billing amounts are in cents" but
 * says nothing about billing; "billing v2 amounts are in dollars", said after "converting from
 * cents", does.
 */
function correctionAddresses(
  fresh: NoteContent,
  knownWords: readonly string[],
  freshWords: readonly string[],
  freshEvidence: string | undefined,
): boolean {
  if (fresh.sourceKind !== 'user_correction' || freshEvidence === undefined) return true;
  const own = new Set(freshWords);
  const spoken = new Set(claimWords(freshEvidence));
  return knownWords.some((w) => !own.has(w) && spoken.has(w));
}

/** Each claim has a number the other lacks ("within 30 days" / "within 14 days"): not a rewording. */
function otherNumbers(a: readonly string[], b: readonly string[]): boolean {
  const numbers = (x: readonly string[], y: readonly string[]) => x.filter((t) => /\d/.test(t) && !y.includes(t));
  return numbers(a, b).length > 0 && numbers(b, a).length > 0;
}

/** Kinds whose notes can disagree; tool behaviour and strategies accumulate. */
export const CONFLICTING_KINDS: ReadonlySet<string> = new Set(['fact', 'constraint', 'preference']);

/**
 * Content words with a plural `s` dropped, so `amount` and `amounts` count as one word. Each
 * proposal is compared with every known note of its scope, so the words of a claim are
 * remembered (shared: do not change the list).
 */
export const claimWords: (claim: string) => readonly string[] = memoByText((claim) =>
  contentTokens(claim).map((t) => (t.length > 3 && /[^s]s$/.test(t) && /^[a-z]+$/.test(t) ? t.slice(0, -1) : t)),
);

function conflictThreshold(a: NoteContent, b: NoteContent): number {
  return a.sourceKind === 'user_statement' && b.sourceKind === 'user_statement'
    ? STATEMENT_CONFLICT_SIMILARITY
    : CONFLICT_SIMILARITY;
}

/** Share of the smaller set's words found in the other. */
function overlap(a: readonly string[], b: readonly string[]): number {
  const sa = new Set(a);
  const sb = new Set(b);
  const smaller = sa.size <= sb.size ? sa : sb;
  const larger = smaller === sa ? sb : sa;
  if (smaller.size === 0) return 0;
  let shared = 0;
  for (const t of smaller) if (larger.has(t)) shared++;
  return shared / smaller.size;
}

/**
 * One claim negates a word the other asserts: "the billing API does not return amounts in cents"
 * against "the billing API returns amounts in cents". A negation over words the other claim does
 * not use ("do not divide them", ", not prose") turns nothing around.
 */
export function negationFlips(a: string, b: string): boolean {
  const flips = (x: string, y: string) => {
    const negatedInY = negatedWords(y);
    const assertedInY = new Set(claimWords(y).filter((w) => !negatedInY.has(w)));
    return [...negatedWords(x)].some((w) => assertedInY.has(w));
  };
  return flips(a, b) || flips(b, a);
}

function negatedWords(claim: string): Set<string> {
  const out = new Set<string>();
  for (const m of claim.matchAll(NEGATION)) for (const w of claimWords(m[1] ?? '').slice(0, NEGATED_WORDS)) out.add(w);
  return out;
}

/**
 * The day of an event the time places; none for a state's "as of" day: told on two days, "Jon is
 * expanding the studio's social media presence" is one state that still holds, not two events.
 */
function eventDay(time: NoteTime | undefined): string | undefined {
  return time && !heldOnItsDay(time) ? time.at : undefined;
}

function differentDays(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && a.slice(0, 10) !== b.slice(0, 10);
}
