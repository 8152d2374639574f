import type { ArchivedRecord, Episode, Finding } from '../src/contracts/episode.ts';
import { selectStatement, statementBeforeQuestion, type SentenceContext } from './statement-selection.ts';
import { MONTH } from './dates.ts';
import { withNarrativeTimes } from './statements.ts';
import { contentTokens, jaccard, sentences } from './text.ts';
import { FIRST_PERSON } from './third-person.ts';

/**
 * What people say that is worth a note: a real preference ("I prefer aisle seats", "Please
 * always …"), or a statement about themselves or their work. Not a note: a question, a request
 * for this episode ("I need a refund for order 1182"), a greeting, an acknowledgement, small
 * talk, or a user's claim that contradicts what a tool just answered.
 */

/** A sentence that states a lasting preference, not a request for this episode. */
export const PREFERENCE_MARKERS =
  /\bI(?:'d| would)? prefer\b|\bI asked for\b.*\bnot\b|^I (?:really |also |just )?(?:like|love|enjoy|hate|dislike)\b|^(?:please,?\s+)?(?:always|never(?! mind)|from now on)\b|\bI (?:always|never) want\b|\bI(?:'d| would)? (?:want|like)\b.*\b(?:instead of|rather than)\b|\bI want (?!to\b).+,\s*not\b/i;

/**
 * Told to an agent, a habit ("I always fly economy", "I never check bags") is how the customer
 * wants to be served every time: a standing preference.
 */
const HABIT = /^I (?:always|never|usually) (?!(?:want|need|have to)\b)[a-z]+\b/i;

const statesPreference = (sentence: string, withAgent: boolean): boolean =>
  PREFERENCE_MARKERS.test(sentence) || (withAgent && HABIT.test(sentence));

/** In a conversation with an agent, sentences that ask for something now. */
const REQUEST =
  /\bplease\b|\b(I need|I want|I'd like|I would like|I'm looking|I am looking|I wish|I'm trying|I am trying|I'm calling|I am calling|I have to|I must|help me|let me know)\b/i;

/** Words a request opens with ("Put a meeting in my calendar", "Can you add …"): asking, not stating. */
const REQUEST_OPENER =
  /^(please|can|could|would|will|put|add|book|send|make|create|export|show|give|find|get|set|schedule|remind|tell|list|help|let|let's|lets|check|update|change|cancel|remove|delete)\b/i;

/** Interjections a sentence may open with before what it says ("Wow, I went …"). */
const INTERJECTION =
  /^(?:(?:wow|oh|hey|hi|hello|yeah|yes|yep|haha|well|so|ah|aw+|omg|ok|okay|thanks|thank you|hey there|got it|alright|all right|great|perfect|sure|sounds good|in that case|unfortunately|actually)[,!.]*\s+)+/i;

/** Words that carry feeling or politeness, not facts: small talk is made of them. */
const FILLER = new Set(
  "really so very super totally just i'm i've i'd i'll it's that's you're glad happy proud thanks thank awesome great amazing cool nice wonderful sounds good love sure know think agree hope".split(
    ' ',
  ),
);

/** Statements with fewer content words than this, feelings and politeness aside, are small talk. @default 4 */
export const STATED_FACT_MIN_WORDS = 4;
/** Longest statement kept from one message, in characters; the sentences kept come first. @default 600 */
export const STATED_FACT_MAX_CHARS = 600;

const isUserSpeech = (r: ArchivedRecord) =>
  r.record.kind === 'user_message' && r.record.source !== 'tool' && r.record.source !== 'retrieved';

/** An episode with an agent in it: "I need …" there asks the agent for something. */
const withAgent = (ep: Episode) =>
  ep.records.some((r) => r.record.kind === 'agent_message' || r.record.kind === 'tool_call');

/**
 * The number of an inline list's next item, left at the end of a sentence ("Check the logs 2.
 * Restart the server"), but not the day of a date ("the meeting on December 5.").
 */
const NEXT_ITEM_NUMBER = new RegExp(`(?<!\\b(?:${MONTH})\\.?)\\s+\\d{1,2}[.)]$`, 'i');

/**
 * The sentences of a message, interjections dropped, questions left out: of a statement with a
 * question joined to it ("My library has 45 sources, how can I tag them?"), the statement.
 */
function statementsOf(text: string): string[] {
  return sentences(text)
    .map((s) => s.replace(INTERJECTION, '').replace(NEXT_ITEM_NUMBER, '').trim())
    .map((s) => (s.endsWith('?') ? (statementBeforeQuestion(s) ?? '') : s))
    .filter((s) => s.length > 0 && !/^\d{1,2}[.)]?$/.test(s));
}

export function preferences(ep: Episode): Finding[] {
  const agent = withAgent(ep);
  return ep.records.flatMap((r, i) => {
    if (!isUserSpeech(r) || contradictsTool(ep, i)) return [];
    const ctx = contextOf(ep, r);
    // "Never give up!" to a friend is encouragement; only an agent takes standing instructions.
    const inDialogue = agent ? partOfAnExchange(ep, i) : () => false;
    return statementsOf(r.record.text ?? '')
      .map((s) => (LIKING.test(s) ? selected(s, ctx) : s))
      .filter((s): s is string => s !== undefined)
      .filter((s) => statesPreference(s, agent) && (agent || FIRST_PERSON.test(s)) && !PREFERENCE_POINTS_BACK.test(s))
      .filter((s) => !(agent && !STANDING.test(s) && (PAYMENT_CHOICE.test(s) || choiceForThisTask(s) || inDialogue(s))))
      .map((s) => ({ type: 'stated_preference' as const, episodeKey: ep.key, summary: s, evidence: [r] }));
  });
}

/**
 * "I prefer flights within that time frame", "I prefer to pay with a gift card instead": what is
 * preferred is only named in an earlier turn, so the preference is a choice in that dialogue.
 */
const PREFERENCE_POINTS_BACK =
  /\bprefer\b(?:.*\b(?:within|in|at|for|on|with|from|like|of|prefer)\s+(?:that|this|these|those|the same)\s+\w+|.*\binstead[.!]?$|.*\b(?:it|them|one)[.!]?$)/i;

/**
 * "I prefer to use only one certificate and pay the rest with my card": told to an agent, how to
 * pay is a choice for the booking at hand, unless the customer says it always holds.
 */
const PAYMENT_CHOICE =
  /\b(?:pay|paying|payment|certificates?|gift ?cards?|vouchers?|credit cards?|card ending|points|miles)\b/i;
/**
 * Told to an agent, "I'd prefer the cheapest economy option available" asks for one booking: a
 * preference put as a wish ("I'd prefer", "I would rather"), one in the same sentence as a
 * request ("I would like to change the flight …, and I prefer …"), or one for the cheapest,
 * earliest or best of what is on offer. Only one said as a habit ("I always fly economy") or in
 * plain present words ("I prefer aisle seats") stands beyond the task.
 */
function choiceForThisTask(sentence: string): boolean {
  // A request beside the preference, not the preference's own words ("I want tables, not prose").
  const beside = sentence.replace(PREFERENCE_MARKERS, ' ');
  return WISHED_PREFERENCE.test(sentence) || REQUEST.test(beside) || BEST_ON_OFFER.test(sentence);
}
/**
 * A preference told to an agent as part of an exchange about the task at hand: the answer to
 * the agent's last question that names what is preferred ("… basic economy, economy, or
 * business?" → "I prefer economy class."), one the message asks the agent to act on ("I prefer
 * flights that depart after 8am. Could you check again?"), or one that holds only on a condition
 * ("I prefer basic economy if it's cheaper"). The choice is for this booking.
 */
function partOfAnExchange(ep: Episode, at: number): (sentence: string) => boolean {
  const message = ep.records[at]?.record.text ?? '';
  const asks = sentences(message).some((s) => s.trim().endsWith('?') || REQUEST_OPENER.test(s.trim()));
  const question = lastAgentQuestion(ep, at);
  return (sentence) => {
    if (asks || CONDITION.test(sentence)) return true;
    if (question === undefined) return false;
    const named = new Set(contentTokens(question));
    return contentTokens(sentence).some((t) => named.has(t) && !PREFERENCE_WORDS.has(t));
  };
}
const CONDITION = /\b(?:if|unless|as long as|provided)\b/i;
const PREFERENCE_WORDS = new Set(['prefer', 'preference', 'like', 'would', 'want']);

/** The question the agent's message just before `at` ends with (its last sentence with a question mark), if any. */
function lastAgentQuestion(ep: Episode, at: number): string | undefined {
  for (let j = at - 1; j >= 0; j--) {
    const r = ep.records[j]?.record;
    if (!r || r.kind === 'tool_call' || r.kind === 'tool_result') continue;
    if (r.kind !== 'agent_message') return undefined;
    const asked = sentences(r.text ?? '').filter((s) => s.includes('?'));
    return asked.length > 0 ? asked.join(' ') : undefined;
  }
  return undefined;
}

const WISHED_PREFERENCE = /\bI(?:'d|\u2019d| would)\s+(?:\w+\s+)?(?:prefer|rather|like|want)\b/i;
const BEST_ON_OFFER =
  /\bthe (?:cheapest|earliest|latest|shortest|fastest|quickest|lowest|highest|longest|nearest|closest|best|most|least)\b/i;
const STANDING = /\b(?:always|never|from now on|in general|usually|whenever|every time)\b/i;

/** "I really like …": a liking is a preference only when what is liked is named, not a reaction to a turn. */
const LIKING = /^(?:\w+,?\s+){0,3}I (?:really |also |just |totally )?(?:like|love|enjoy|hate|dislike)\b/i;

/**
 * What a speaker told about themselves or their work (a plan, an event, a number, a change): each
 * declarative sentence about the speaker that states no preference is a note of its own, so a
 * note holds one statement; a restatement of one already kept from the episode adds none.
 */
export function statedFacts(ep: Episode): Finding[] {
  const agent = withAgent(ep);
  const kept: Array<readonly string[]> = [];
  return ep.records.flatMap((r, i) => {
    if (!isUserSpeech(r) || contradictsTool(ep, i)) return [];
    const ctx = contextOf(ep, r);
    // A past event told right after the sentence that named its time takes that time.
    return withNarrativeTimes(statementsOf(r.record.text ?? ''), r.record.observedAt)
      .filter((s) => !statesPreference(s, agent))
      .map((s) => selected(s, ctx))
      .filter((s): s is string => s !== undefined && isStatement(s, agent) && !restates(s, kept))
      .map((s) => ({ type: 'stated_fact' as const, episodeKey: ep.key, summary: within(s), evidence: [r] }));
  });
}

const selected = (sentence: string, ctx: SentenceContext): string | undefined => {
  const selection = selectStatement(sentence, ctx);
  return selection.kept ? selection.text : undefined;
};

/** Who is addressed and when, for one message of the episode. */
function contextOf(ep: Episode, r: ArchivedRecord): SentenceContext {
  const others = new Set(
    ep.records
      .filter((x) => x.record.kind === 'user_message' && x.record.userId && x.record.userId !== r.record.userId)
      .map((x) => x.record.userId as string),
  );
  const listener = others.size === 1 ? [...others][0] : undefined;
  return { withAgent: withAgent(ep), observedAt: r.record.observedAt, ...(listener ? { listener } : {}) };
}

/** Share of content words two statements must share to be one restated. @default 0.7 */
export const RESTATEMENT_MIN_OVERLAP = 0.7;

/** Whether the statement says again what one kept before says; records it as kept otherwise. */
function restates(statement: string, kept: Array<readonly string[]>): boolean {
  const words = contentTokens(statement);
  if (kept.some((k) => jaccard(k, words) >= RESTATEMENT_MIN_OVERLAP)) return true;
  kept.push(words);
  return false;
}

function isStatement(s: string, inAgentEpisode: boolean): boolean {
  if (REQUEST_OPENER.test(s) || !FIRST_PERSON.test(s)) return false;
  if (inAgentEpisode && REQUEST.test(s)) return false;
  const words = contentTokens(s).filter((t) => !FILLER.has(t));
  // A short statement carrying an identifier or a number ("My user ID is omar_3817") is no small talk.
  return words.length >= STATED_FACT_MIN_WORDS || (words.length >= 2 && words.some((t) => /\d/.test(t)));
}

/** One sentence longer than STATED_FACT_MAX_CHARS is cut at a word. */
function within(sentence: string): string {
  return sentence.length <= STATED_FACT_MAX_CHARS
    ? sentence
    : sentence.slice(0, sentence.lastIndexOf(' ', STATED_FACT_MAX_CHARS));
}

const NEGATION = /\b(no|not|never|don't|doesn't|dont|doesnt|isn't|without|just retry|ignore)\b|n't\b/i;
/** Content words a reply must share with a tool's error before it is read as disputing it. @default 2 */
export const DISPUTE_MIN_SHARED_WORDS = 2;

/**
 * A user's reply that denies what a tool's error just said ("refunds never need approval, just
 * retry it" after "refunds over $100 need a manager approval id"). The tool is the authority on
 * its own rules: the reply becomes no note, and the tool's lesson stands.
 */
export function contradictsTool(ep: Episode, index: number): boolean {
  const text = ep.records[index]?.record.text ?? '';
  if (!NEGATION.test(text)) return false;
  const words = new Set(contentTokens(text).map(stem));
  return ep.records.slice(0, index).some((r) => {
    if (r.record.kind !== 'error') return false;
    const shared = new Set(
      contentTokens(r.record.text ?? '')
        .map(stem)
        .filter((t) => words.has(t)),
    );
    return shared.size >= DISPUTE_MIN_SHARED_WORDS;
  });
}

/** Plural and third-person -s dropped, so "refunds need" meets "refund needs". */
const stem = (token: string) => (token.length > 3 ? token.replace(/s$/, '') : token);
