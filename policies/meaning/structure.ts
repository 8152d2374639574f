import type { ParsedNoteStructure } from '../../src/contracts/note-structure.ts';
import type { RawRecord } from '../../src/contracts/raw-record.ts';
import { recordText, wordTokens } from '../text.ts';
import { negates, polarityByForm, polarWords } from './negation.ts';
import { evidenceForms, missingForms, stem } from './normalize.ts';
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
  // A value written in the third person may name the speaker ("Caroline's kids" for "my kids").
  const evidence = new Set(cited.flatMap((r, i) => [...evidenceForms(`${texts[i]} ${r.userId ?? ''} ${r.agentId}`)]));
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
 * Whether `texts` treat the value otherwise than the note does. A word of the value that occurs
 * there with one polarity only, and is denied on one side at least, votes: it agrees when it is
 * denied exactly where the note means it to be (a value may carry its own negation, "amounts are
 * not in cents"). A word asserted on both sides is no sign either way.
 */
function contradicts(value: string, texts: readonly string[], valueIsDenied: boolean): boolean {
  const byForm = polarityByForm(texts.flatMap(polarWords));
  let agree = 0;
  let disagree = 0;
  for (const w of polarWords(value)) {
    const seen = byForm.get(w.form);
    if (seen?.size !== 1) continue;
    const meant = w.denied !== valueIsDenied;
    const found = [...seen][0];
    if (!meant && !found) continue;
    if (found === meant) agree++;
    else disagree++;
  }
  return disagree > agree;
}

function checkPolarity(s: ParsedNoteStructure, value: string, texts: readonly string[]) {
  // "avoids window seats" agrees with "not a window seat", or with "I avoid window seats".
  const turnsAway = denyingVerb(s.attribute) && !texts.some((t) => attributeIn(s.attribute, t));
  if (!contradicts(value, texts, valueDenied(s) !== turnsAway)) return undefined;
  return fail('polarity_mismatch', `the cited records do not say "${s.value}" the way the ${s.polarity} note does`);
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
  if (contradicts(value, [claim], valueDenied(s))) {
    return fail(
      'claim_structure_mismatch',
      `the claim does not say "${s.value}" the way its ${s.polarity} structure does`,
    );
  }
  return undefined;
}
