import type { ParsedNoteStructure } from '../../src/contracts/note-structure.ts';
import type { RawRecord } from '../../src/contracts/raw-record.ts';
import { TEMPLATE_VOCABULARY } from '../note-templates.ts';
import { recordText, wordTokens } from '../text.ts';
import { polarityByForm, polarWords, TRANSPARENT, type PolarWord } from './negation.ts';
import { evidenceForms, missingForms, recordForms, stem, textForms, unionOfForms, type Forms } from './normalize.ts';
import { recordTool, subjectShown } from './subject.ts';
import { mentionsOverlap, type PlacedMention, type TimeMention } from '../dates.ts';
import { absoluteDates, dayOf, unsupportedPeriod, withoutTimeWords } from './time.ts';

/**
 * Checks each field of a note's structure against the records it cites, then the claim against
 * the structure: who it is about, what value it states, whether it asserts or denies it, when,
 * and whether the claim says what the fields say. A failed check names its rule.
 */

export type MeaningRule =
  'subject_mismatch' | 'value_unsupported' | 'polarity_mismatch' | 'time_mismatch' | 'claim_structure_mismatch';

export interface MeaningFailure {
  rule: MeaningRule;
  detail: string;
}

/** An attribute that advises (`should not call`, `must ask before`). */
const ADVICE = /\b(should|must|ought|shall|need to|needs to|has to|have to)\b/i;

/** Stems of verbs that turn away from their object. */
const DENYING_VERB = /^(avoid|dislik|hat|forbid|reject|refus|declin|ban|prohibit|disallow|oppos|block)$/;

const fail = (rule: MeaningRule, detail: string): MeaningFailure => ({ rule, detail });

/** The first field of `s` its evidence or its claim does not bear out; undefined when all agree. */
export function checkStructure(s: ParsedNoteStructure, claim: string, cited: readonly RawRecord[]) {
  const texts = cited.map((r) => recordText(r));
  // A value written in the third person may name the speaker ("Caroline's kids" for "my kids");
  // a digest names its session, a lesson of several runs its task type.
  const ids = (r: RawRecord) => evidenceForms(`${r.userId ?? ''} ${r.agentId} ${r.sessionId} ${r.taskType ?? ''}`);
  const evidence = unionOfForms(cited.flatMap((r) => [recordForms(r), ids(r)]));
  const observedAt = cited[0]?.observedAt ?? new Date(0).toISOString();
  const value = withoutTimeWords(s.value, observedAt);
  if (!subjectShown(s.subject, cited)) {
    return fail(
      'subject_mismatch',
      `${s.subject.type} ${s.subject.id} neither speaks in nor is named by the cited records`,
    );
  }
  return (
    checkValues(s, value.rest, evidence, cited) ??
    checkPolarity(s, value.rest, texts) ??
    checkTime(s, value.mentions, claim, cited) ??
    checkClaim(s, value.rest, claim)
  );
}

function checkValues(s: ParsedNoteStructure, value: string, evidence: Forms, cited: readonly RawRecord[]) {
  const missing = unexplained(value, evidence, s.template === 'episode_summary');
  if (missing.length > 0)
    return fail('value_unsupported', `the value's ${missing.join(', ')} occur in no cited record`);
  const contrast = s.contrast ? unexplained(s.contrast, evidence) : [];
  if (contrast.length > 0)
    return fail('value_unsupported', `the contrast's ${contrast.join(', ')} occur in no cited record`);
  for (const c of s.conditions) {
    if (!conditionShown(c.field, c.value, evidence, cited)) {
      return fail('value_unsupported', `condition ${c.field} ${c.op} ${String(c.value)} is not in the cited records`);
    }
  }
  return undefined;
}

/**
 * Words the claim templates put between a structure's fields ("over $100", "pageSize 200 works",
 * "successful runs call …; a failed run skipped it"): they relate the fields, the fields carry
 * the claim. A digest's value quotes such claims, so a passage may hold them too.
 */
export const TEMPLATE_CONNECTIVES = [
  // how conditions are written ("over $100", "of at most 5")
  'over under above below least most more less than equal when unless instead rather while whereas user',
  ...TEMPLATE_VOCABULARY,
].join(' ');
const CONNECTIVE_FORMS = evidenceForms(TEMPLATE_CONNECTIVES);

/** Words a third-person rewrite puts for "we" and "us" ("Melanie and others"), and for "you" said to the agent. */
const REWRITE_WORDS = new Set(['other', 'assistant']);

/**
 * A value of this many distinct words is a passage (a report, a digest) rather than a field, and
 * its rewrite into the third person may name the person spoken to ("proud of you" → "proud of
 * Melanie"): a tenth of its words may be missing from the records. A shorter value must occur whole.
 */
export const PASSAGE_MIN_WORDS = 10;
export const PASSAGE_MAX_MISSING = 0.1;

/**
 * The value's forms the records do not bear out, beyond what a passage may miss. A digest frames
 * what it tells in template words ("talked", "called", "the run ended in"), however short it is.
 */
function unexplained(value: string, evidence: Forms, framed = false): string[] {
  const size = new Set(textForms(value).filter((f) => !f.optional && !REWRITE_WORDS.has(f.form))).size;
  const passage = size >= PASSAGE_MIN_WORDS;
  const missing = [...new Set(missingForms(value, evidence))].filter(
    (f) => !REWRITE_WORDS.has(f) && !((passage || framed) && CONNECTIVE_FORMS.has(f)),
  );
  const allowed = passage ? Math.floor(size * PASSAGE_MAX_MISSING) : 0;
  return missing.length > allowed ? missing : [];
}

function conditionShown(
  field: string,
  value: string | number | boolean,
  evidence: Forms,
  cited: readonly RawRecord[],
): boolean {
  if (typeof value === 'boolean') return true;
  const text = String(value);
  if (field === 'task_type') return cited.some((r) => r.taskType === text);
  if (field === 'tool') return cited.some((r) => recordTool(r) === text) || missingForms(text, evidence).length === 0;
  return missingForms(text, evidence).length === 0;
}

/**
 * The value's words with the polarity the note gives them: the sentence subject-attribute-value
 * read with the negation a negative note (or a denying verb read as one) puts before it, so a
 * negation reaches as far into the value as it would in a sentence ("will not quit - her words
 * motivate him" denies the quitting, not the motivation).
 */
function meantWords(s: ParsedNoteStructure, value: string, deny: boolean): PolarWord[] {
  // Advice ("should not call X") speaks of what to do, not of what the records show: a failed
  // run's call of X is its evidence. Its negation says nothing of the value's polarity there.
  const attribute = ADVICE.test(s.attribute) ? '' : s.attribute;
  const all = polarWords(`${deny ? 'not ' : ''}${attribute} ${value}`);
  return all.slice(all.length - polarWords(value).length);
}

/** An attribute whose verb turns away from its value ("avoids window seats"). */
function denyingVerb(attribute: string): boolean {
  return wordTokens(attribute).some((t) => DENYING_VERB.test(stem(t)));
}

/**
 * Whether `texts` treat the value otherwise than the note does. A word of the value that occurs
 * there with one polarity only, and is denied on one side at least, votes: it agrees when the
 * texts deny it exactly where the note means it denied (a value may carry its own negation,
 * "amounts are not in cents"). A word asserted on both sides is no sign either way, nor is a verb
 * of attitude or speech (see TRANSPARENT).
 */
function contradicts(meant: readonly PolarWord[], texts: readonly string[]): boolean {
  const byForm = polarityByForm(texts.flatMap(polarWords));
  let agree = 0;
  let disagree = 0;
  for (const w of meant) {
    const seen = byForm.get(w.form);
    if (seen?.size !== 1 || TRANSPARENT.has(w.form)) continue;
    const found = [...seen][0];
    if (!w.denied && !found) continue;
    if (found === w.denied) agree++;
    else disagree++;
  }
  return disagree > agree;
}

function checkPolarity(s: ParsedNoteStructure, value: string, texts: readonly string[]) {
  // "avoids window seats" agrees with "not a window seat", or with "I avoid window seats".
  const turnsAway = denyingVerb(s.attribute) && !texts.some((t) => attributeIn(s.attribute, t));
  if (!contradicts(meantWords(s, value, (s.polarity === 'negative') !== turnsAway), texts)) return undefined;
  return fail('polarity_mismatch', `the cited records do not say "${s.value}" the way the ${s.polarity} note does`);
}

function attributeIn(attribute: string, text: string): boolean {
  return missingForms(attribute, evidenceForms(text)).length === 0;
}

function checkTime(
  s: ParsedNoteStructure,
  inValue: readonly TimeMention[],
  claim: string,
  cited: readonly RawRecord[],
) {
  const noted = [...[s.time?.at, s.time?.by].flatMap((t) => (t ? [dayOf(t)] : [])), ...inValue];
  const claimed = absoluteDates(claim);
  const missing = unsupportedPeriod([...noted, ...claimed], cited);
  if (missing) return fail('time_mismatch', `no cited record speaks of ${missing}`);
  const inContrast = s.contrast ? withoutTimeWords(s.contrast, cited[0]?.observedAt ?? new Date(0)).mentions : [];
  const stated = [...noted, ...inContrast, ...(s.time?.until ? [dayOf(s.time.until)] : [])];
  const agrees = (c: TimeMention) => stated.some((d) => mentionsOverlap(c, d));
  const other = claimed.find((c, i) => stated.length > 0 && !agrees(c) && !secondOfPair(claim, claimed, i, agrees));
  if (other) return fail('claim_structure_mismatch', `the claim's ${other.text} is not the note's time`);
  return undefined;
}

/**
 * The second day of a pair the note's time begins ("on 6 April 2024 and 7 April 2024", "3 or 4
 * June"): a day of the same month joined by "and" or "or" to a claimed day that agrees. The note's
 * structure holds one time; the cited records are asked about every claimed day all the same.
 */
function secondOfPair(
  claim: string,
  claimed: readonly PlacedMention[],
  i: number,
  agrees: (m: TimeMention) => boolean,
): boolean {
  const [first, second] = [claimed[i - 1], claimed[i]];
  if (!first || !second || first.precision !== 'day' || second.precision !== 'day' || !agrees(first)) return false;
  const sameMonth =
    first.at.getUTCFullYear() === second.at.getUTCFullYear() && first.at.getUTCMonth() === second.at.getUTCMonth();
  const between = claim.slice(first.index + first.text.length, second.index);
  return sameMonth && /^\s*(?:and|or)\s*(?:on\s+)?$/i.test(between);
}

function checkClaim(s: ParsedNoteStructure, value: string, claim: string) {
  const inClaim = evidenceForms(claim);
  // The agent a lesson is about is the one reading it: "successful runs call verify" needs no name.
  if (s.subject.type !== 'agent' && missingForms(s.subject.id, inClaim).length > 0) {
    return fail('claim_structure_mismatch', `the claim does not name its subject ${s.subject.id}`);
  }
  const missing = missingForms(value, inClaim);
  if (missing.length > 0) return fail('claim_structure_mismatch', `the claim lacks the value's ${missing.join(', ')}`);
  if (contradicts(meantWords(s, value, s.polarity === 'negative'), [claim])) {
    return fail(
      'claim_structure_mismatch',
      `the claim does not say "${s.value}" the way its ${s.polarity} structure does`,
    );
  }
  return undefined;
}
