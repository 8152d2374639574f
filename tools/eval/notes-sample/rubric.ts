/**
 * Automatic checks on a note's claim, to help a person reading a sample of notes: each flags a
 * common way a note fails the rubric (a general statement, third person, absolute time, the
 * narrowest right scope, faithful to its evidence). A flag is a prompt to look, not a verdict.
 */
export const RUBRIC_CHECKS = ['first_person', 'relative_time', 'question_or_request', 'verbatim'] as const;
export type RubricCheck = (typeof RUBRIC_CHECKS)[number];

export const CHECK_TITLES: Record<RubricCheck, string> = {
  first_person: 'first-person word in the claim (I, my, me, we, our)',
  relative_time:
    'relative time (today, yesterday, tomorrow, next/last <weekday|week|month|year>, ago, recently, lately)',
  question_or_request: 'a question or a request stored as a note',
  verbatim: 'claim copied verbatim from one cited record',
};

// "me" joined to a noun ("me-time") names no one.
const FIRST_PERSON = /\b(i|my|me|we|our)\b(?!-[a-z])/i;
const WEEKDAY = '(monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const RELATIVE_TIME = new RegExp(
  `\\b(today|tonight|yesterday|tomorrow|ago|recently|lately)\\b|\\b(next|last|this)\\s+(${WEEKDAY}|week|weekend|month|year)\\b`,
  'i',
);
const REQUEST = /\?|\bplease\b|^\s*(can|could|would|will) you\b|^\s*(help me|let me know)\b/i;

/** Lower case, words only: punctuation and quoting do not hide a copy. */
const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * The claim is one record's text with little around it (a speaker's name, quotes), or a cut of
 * one record's text: at least 80% of the claim's words are that record's, in order.
 */
function copiedFrom(claim: string, record: string): boolean {
  const c = words(claim);
  const r = words(record);
  if (c.length === 0 || r.length === 0) return false;
  const cs = ` ${c.join(' ')} `;
  const rs = ` ${r.join(' ')} `;
  if (cs.includes(rs)) return r.length >= 0.8 * c.length;
  return rs.includes(cs) && (c.length >= 5 || cs === rs);
}

/** The checks a claim trips, given the texts of the records it cites. */
export function rubricFlags(claim: string, citedTexts: readonly string[]): RubricCheck[] {
  const flags: RubricCheck[] = [];
  if (FIRST_PERSON.test(claim)) flags.push('first_person');
  if (RELATIVE_TIME.test(claim)) flags.push('relative_time');
  if (REQUEST.test(claim)) flags.push('question_or_request');
  if (citedTexts.some((t) => copiedFrom(claim, t))) flags.push('verbatim');
  return flags;
}
