import type { RecordKind } from '../src/contracts/raw-record.ts';
import { absoluteTimes } from './statements.ts';
import { sentences } from './text.ts';
import { toThirdPerson } from './third-person.ts';

/**
 * Which raw records the record index keeps: what someone said or a tool answered in words.
 * Tool calls (arguments), outcomes, approvals and memory_used records carry no text an agent
 * would want to read back; they stay in the archive and reach notes through consolidation.
 */
export const RECALLABLE_KINDS: ReadonlySet<RecordKind> = new Set<RecordKind>([
  'user_message',
  'agent_message',
  'user_correction',
  'tool_result',
  'error',
  'feedback',
]);

/** Shorter texts ("ok", "thanks!") match every query a little and answer none. @default 3 */
export const MIN_RECALLABLE_CHARS = 3;

export interface RecallableRecord {
  kind: RecordKind;
  text?: string | undefined;
  userId?: string | undefined;
  role?: string | undefined;
}

/** The record's text when the index keeps it, else undefined. */
export function recallableText(record: RecallableRecord): string | undefined {
  if (!RECALLABLE_KINDS.has(record.kind)) return undefined;
  const text = record.text?.trim();
  return text !== undefined && text.length >= MIN_RECALLABLE_CHARS ? text : undefined;
}

/** Records whose "I" is a person the index can name: what a user said, corrected or judged. */
const SPOKEN_BY_USER: ReadonlySet<RecordKind> = new Set<RecordKind>(['user_message', 'user_correction', 'feedback']);

/**
 * Who a record is matched as speaking: for what a user said, corrected or judged, the user; else
 * the role ("assistant"), else the kind. An agent's reply or a tool's answer in a user's session
 * is not the user's: told as theirs, it read as their own statement. Indexed with the text so a
 * question that names a person ("what did Caroline…") finds that person's words.
 */
export function speakerOf(record: RecallableRecord): string {
  return (SPOKEN_BY_USER.has(record.kind) ? record.userId : undefined) ?? record.role ?? record.kind;
}

/** The string a record is embedded and matched as. */
export function matchText(speaker: string, text: string): string {
  return `${speaker}: ${text}`;
}

/**
 * A record told the way a note tells it (what recall matches words in): in the third
 * person with the speaker's name and with relative times made absolute against the record's
 * time ("Caroline: Caroline went to a support group on 7 May 2023"). A question names the person
 * and the event, never "I" or "yesterday"; a record that no note cites (small talk around a fact,
 * a reply) is then found as a note about it would be. The stored text stays as it was said.
 */
export function toldText(record: { kind: RecordKind; speaker: string; text: string; observedAt: string }): string {
  const absolute = absoluteTimes(record.text, record.observedAt, { keepDaysWithoutYear: true }).text;
  const told = SPOKEN_BY_USER.has(record.kind) ? toThirdPerson(absolute, { speaker: record.speaker }) : absolute;
  return matchText(record.speaker, told);
}

/**
 * A turn before this many characters is a conversational turn; a longer one (an assistant's
 * page of code, a document a tool returned) would outweigh the record in its vector. LoCoMo's
 * turns: 99% under 373 characters; BEAM's assistant replies: 90% over 2,200. @default 500
 */
export const TURN_BEFORE_MAX_CHARS = 500;

/**
 * The form of record vector the indexer writes: 1 the told text alone, 2 the told text and the
 * turn said before it (`embeddedText`). A row or archive object indexed in an older form is read
 * and embedded again by the next `nocturne index records` (migration 0036); raise this whenever
 * `embeddedText` changes what a vector is made of.
 */
export const RECORD_VECTOR_FORM = 2;

/** The record said just before one in its session (the index's previous record there). */
export interface TurnBefore {
  recordId: string;
  speaker: string;
  text: string;
}

/** Whether a record's vector takes in the turn before it: only a conversational turn does. */
export function takesTurnBefore(before: TurnBefore | undefined): before is TurnBefore {
  return before !== undefined && before.text.length <= TURN_BEFORE_MAX_CHARS;
}

/**
 * The string a record's vector is made of: the record told (`toldText`), followed by the turn
 * said before it in its session as it was said ("Jon: Jon is glad to be part of it.\n(after
 * Gina: Are they yours at the festival?)"). A reply names little of what it answers ("Glad to be
 * part of it", "For walking or running?"); a question about it names that. The record comes
 * first and the turn as said (not told), so the record's own words and speaker lead the vector.
 */
export function embeddedText(
  record: { kind: RecordKind; speaker: string; text: string; observedAt: string },
  before?: TurnBefore,
): string {
  return withTurnBefore(toldText(record), before);
}

/** A told record (`toldText`) with the turn before it, as `embeddedText` makes it. */
export function withTurnBefore(told: string, before: TurnBefore | undefined): string {
  return takesTurnBefore(before) ? `${told}\n(after ${matchText(before.speaker, before.text)})` : told;
}

/**
 * A question told the way records and notes are: in the third person with the asker's name
 * ("when does my sprint end?" asked by u-dan → "when does u-dan's sprint end?"), so that the
 * asker's own words, stored as "u-dan: u-dan's sprint ends …", match it by meaning and by word.
 * A question that names no one in the first person comes back as it was.
 */
export function toldQuestion(query: string, askedBy: string | undefined): string {
  return askedBy === undefined ? query : toThirdPerson(query, { speaker: askedBy });
}

/**
 * BM25 for the record channel's full-text ranking (src/recall/record-queries.ts): the usual
 * constants (Robertson et al.; k1 in 1.2–2.0, b 0.75), not tuned here.
 */
export const RECORD_BM25 = { k1: 1.2, b: 0.75 } as const;
/** Rows pooled by ts_rank before BM25 ranks them, as a multiple of the rows asked for. @default 8 */
export const RECORD_TEXT_POOL_FACTOR = 8;
/** The pool's ceiling. @default 2000 */
export const RECORD_TEXT_POOL_MAX = 2000;
/**
 * Records of the times a question names that recall ranks at most, the first said there: a day
 * of LoCoMo holds about 30; a month of a tenant that writes a record every 26 seconds about
 * 100,000, whose ranking took 91 ms, 4 ms at this cap (docs/BENCHMARKS.md). @default 1000
 */
export const RECORD_TIME_SCAN_MAX = 1000;

/** What a record shows ("[shares a photo: …]") is not what it says. */
const said = (text: string): string[] => sentences(text.replace(/\[[^\]]*\]/g, ' ').trim());
const asks = (sentence: string): boolean => /\?["')\]]*$/.test(sentence);

/**
 * Whether a record ends by asking ("I signed up for a pottery class. Have you found anything
 * like it?"): what the other person says next most often answers it, in words the question's
 * reader would not search for ("How long have you been married?" → "5 years already!").
 */
export function endsAsking(text: string): boolean {
  const sentencesSaid = said(text);
  return sentencesSaid.length > 0 && asks(sentencesSaid[sentencesSaid.length - 1] as string);
}

/**
 * Kinds whose record answers a question that came before it: what a person said (their own
 * words, corrected or judged). An agent's reply to a user's question is its own output, ranked
 * on its own: brought after every user message that asks, it pushed the users' statements out of
 * BEAM's answers.
 */
export const REPLY_KINDS: ReadonlySet<RecordKind> = SPOKEN_BY_USER;
