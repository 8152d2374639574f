import type { ParsedNoteStructure } from '../../src/contracts/note-structure.ts';
import type { RawRecord } from '../../src/contracts/raw-record.ts';
import { recordText, wordTokens } from '../text.ts';
import { negates, polarityByForm, polarWords } from './negation.ts';
import { evidenceForms, missingForms, stem, textForms } from './normalize.ts';
import { recordTool, subjectShown } from './subject.ts';
import { absoluteDates, unsupportedDate, withoutTimeWords } from './time.ts';

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

/** Stems of verbs that turn away from their object. */
const DENYING_VERB = /^(avoid|dislik|hat|forbid|reject|refus|declin|ban|prohibit|disallow|oppos|block)$/;

const fail = (rule: MeaningRule, detail: string): MeaningFailure => ({ rule, detail });

/** The first field of `s` its evidence or its claim does not bear out; undefined when all agree. */
export function checkStructure(s: ParsedNoteStructure, claim: string, cited: readonly RawRecord[]) {
  const texts = cited.map((r) => recordText(r));
  const evidence = new Set(texts.flatMap((t) => [...evidenceForms(t)]));
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
    checkTime(
      s,
      value.mentions.map((m) => m.at),
      claim,
      cited,
    ) ??
    checkClaim(s, value.rest, claim)
  );
}

function checkValues(
  s: ParsedNoteStructure,
  value: string,
  evidence: ReadonlySet<string>,
  cited: readonly RawRecord[],
) {
  const missing = missingForms(value, evidence);
  if (missing.length > 0)
    return fail('value_unsupported', `the value's ${missing.join(', ')} occur in no cited record`);
  const contrast = s.contrast ? missingForms(s.contrast, evidence) : [];
  if (contrast.length > 0)
    return fail('value_unsupported', `the contrast's ${contrast.join(', ')} occur in no cited record`);
  for (const c of s.conditions) {
    if (!conditionShown(c.field, c.value, evidence, cited)) {
      return fail('value_unsupported', `condition ${c.field} ${c.op} ${String(c.value)} is not in the cited records`);
    }
  }
  return undefined;
}

function conditionShown(
  field: string,
  value: string | number | boolean,
  evidence: ReadonlySet<string>,
  cited: readonly RawRecord[],
): boolean {
  if (typeof value === 'boolean') return true;
  const text = String(value);
  if (field === 'task_type') return cited.some((r) => r.taskType === text);
  if (field === 'tool') return cited.some((r) => recordTool(r) === text) || missingForms(text, evidence).length === 0;
  return missingForms(text, evidence).length === 0;
}

/** Whether the value is denied where the note is written: a negative note, or an attribute that negates ("does not want"). */
function valueDenied(s: ParsedNoteStructure): boolean {
  return (s.polarity === 'negative') !== negates(s.attribute);
}

/** An attribute whose verb turns away from its value ("avoids window seats"). */
function denyingVerb(attribute: string): boolean {
  return wordTokens(attribute).some((t) => DENYING_VERB.test(stem(t)));
}

/**
 * How `text` treats the value: asserted, denied, or undecided (its words occur both ways or not
 * at all). Each of the value's words that occurs with one polarity only casts a vote.
 */
function stance(value: string, texts: readonly string[]): boolean | undefined {
  const byForm = polarityByForm(texts.flatMap(polarWords));
  const votes = textForms(value)
    .filter((f) => !f.optional)
    .map((f) => byForm.get(f.form))
    .filter((seen): seen is Set<boolean> => seen?.size === 1)
    .map((seen) => [...seen][0]!);
  if (votes.length === 0) return undefined;
  if (votes.every((v) => v)) return true;
  return votes.every((v) => !v) ? false : undefined;
}

function checkPolarity(s: ParsedNoteStructure, value: string, texts: readonly string[]) {
  const denied = stance(value, texts);
  if (denied === undefined) return undefined;
  const expected = valueDenied(s);
  // "avoids window seats" agrees with "not a window seat" and with "I avoid window seats".
  if (denyingVerb(s.attribute) && (expected || denied || texts.some((t) => attributeIn(s.attribute, t))))
    return undefined;
  if (denied === expected) return undefined;
  return fail(
    'polarity_mismatch',
    `the cited records ${denied ? 'deny' : 'assert'} "${s.value}", the note is ${s.polarity}`,
  );
}

function attributeIn(attribute: string, text: string): boolean {
  return missingForms(attribute, evidenceForms(text)).length === 0;
}

function checkTime(s: ParsedNoteStructure, valueDates: readonly Date[], claim: string, cited: readonly RawRecord[]) {
  const noted = [...(s.time?.at ? [new Date(s.time.at)] : []), ...valueDates];
  const claimed = absoluteDates(claim).map((m) => m.at);
  const missing = unsupportedDate([...noted, ...claimed], cited);
  if (missing) return fail('time_mismatch', `no cited record speaks of ${missing.toISOString().slice(0, 10)}`);
  const stated = [...noted, ...(s.time?.until ? [new Date(s.time.until)] : [])].map((d) =>
    d.toISOString().slice(0, 10),
  );
  const other = claimed.find((d) => stated.length > 0 && !stated.includes(d.toISOString().slice(0, 10)));
  if (other)
    return fail('claim_structure_mismatch', `the claim's date ${other.toISOString().slice(0, 10)} is not the note's`);
  return undefined;
}

function checkClaim(s: ParsedNoteStructure, value: string, claim: string) {
  const inClaim = evidenceForms(claim);
  if (missingForms(s.subject.id, inClaim).length > 0) {
    return fail('claim_structure_mismatch', `the claim does not name its subject ${s.subject.id}`);
  }
  const missing = missingForms(value, inClaim);
  if (missing.length > 0) return fail('claim_structure_mismatch', `the claim lacks the value's ${missing.join(', ')}`);
  const stated = stance(value, [claim]);
  if (stated !== undefined && stated !== valueDenied(s)) {
    return fail(
      'claim_structure_mismatch',
      `the claim ${stated ? 'denies' : 'asserts'} "${s.value}", its structure is ${s.polarity}`,
    );
  }
  return undefined;
}
