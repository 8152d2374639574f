import type { Proposal } from '../src/contracts/episode.ts';
import { NoteContent } from '../src/contracts/note.ts';
import type { ParsedNoteStructure } from '../src/contracts/note-structure.ts';
import { formatIssues } from '../src/contracts/format-issues.ts';
import type { RawRecord } from '../src/contracts/raw-record.ts';
import { withinCap } from './confidence.ts';
import { instructionKinds } from './injection.ts';
import { redact, sensitiveLeft } from './redaction.ts';
import { isUntrusted, toolDerived, untrustedText } from './untrusted/trust.ts';
import { TEMPLATE_VOCABULARY } from './note-templates.ts';
import { checkScopeBreadth } from './scope.ts';
import { formatMention } from './dates.ts';
import { invertsEvidence } from './meaning/negation.ts';
import { evidenceForms, missingTokens, phraseTokens, recordForms, unionOfForms } from './meaning/normalize.ts';
import { checkStructure, TEMPLATE_CONNECTIVES, type MeaningFailure } from './meaning/structure.ts';
import { absoluteDates, unsupportedPeriod } from './meaning/time.ts';
import { recordText } from './text.ts';

/** Every rule a proposal must pass before commit, by stable name. */
export const VALIDATION_RULES = [
  'evidence_missing',
  'evidence_unresolved',
  'evidence_hash_mismatch',
  'evidence_other_tenant',
  'claim_unsupported',
  'scope_too_wide',
  'confidence_over_cap',
  'sensitive_data',
  'untrusted_instruction',
  'untrusted_source_kind',
  'content_invalid',
  'subject_mismatch',
  'value_unsupported',
  'polarity_mismatch',
  'time_mismatch',
  'claim_structure_mismatch',
] as const;
export type ValidationRule = (typeof VALIDATION_RULES)[number];

/** Share of a claim's content words that must occur in the records it cites. @default 0.6 */
export const SUPPORT_MIN_COVERAGE = 0.6;

/**
 * Connective words the deterministic engine adds around extracted text; they are not claims
 * about the world, so support is measured without them. Redaction placeholders likewise.
 */
export const TEMPLATE_WORDS = new Set([
  'failed',
  'retrying',
  'succeeded',
  'successful',
  'tasks',
  'call',
  'skipped',
  'one',
]);

export interface ResolvedRecord {
  record: RawRecord;
  contentHash: string;
}

export type Verdict =
  | { verdict: 'accept' }
  | { verdict: 'reject'; rule: ValidationRule; detail: string }
  | { verdict: 'quarantine'; rule: ValidationRule; detail: string };

const reject = (rule: ValidationRule, detail: string): Verdict => ({ verdict: 'reject', rule, detail });

/** What a note resting on tool and retrieved records alone may call its source: nobody vouched for more. */
export const TOOL_DERIVED_SOURCE_KINDS: ReadonlySet<string> = new Set(['tool_fact', 'inference']);

/**
 * `resolved` maps record id → the archived record it resolved to (absent: did not resolve).
 * `p` is the proposal as the engine wrote it, before redaction: instructions are looked for in
 * the raw claim and the raw cited text (redaction would hide the address an exfiltration names);
 * every other rule sees the claim as it would be stored, redacted.
 */
export function validateProposal(
  p: Proposal,
  tenantId: string,
  resolved: ReadonlyMap<string, ResolvedRecord>,
): Verdict {
  // An engine (a model above all) can write what the note contract refuses: that proposal is
  // rejected with the reason, the rest of the batch goes on.
  const shape = NoteContent.safeParse(p.content);
  if (!shape.success) return reject('content_invalid', formatIssues(shape.error.issues, { root: '' }));
  const refs = p.content.evidence;
  if (refs.length === 0) return reject('evidence_missing', 'a note needs at least one evidence ref');
  const cited: RawRecord[] = [];
  for (const ref of refs) {
    const hit = resolved.get(ref.recordId);
    if (!hit) return reject('evidence_unresolved', `record ${ref.recordId} not found at ${ref.objectKey}:${ref.line}`);
    if (hit.contentHash !== ref.contentHash)
      return reject('evidence_hash_mismatch', `record ${ref.recordId} changed since it was cited`);
    if (hit.record.tenantId !== tenantId)
      return reject('evidence_other_tenant', `record ${ref.recordId} belongs to another tenant`);
    cited.push(hit.record);
  }
  const injected = untrustedInstructions(p.content.claim, cited);
  if (injected.length > 0) {
    return {
      verdict: 'quarantine',
      rule: 'untrusted_instruction',
      detail: `instruction-like text (${injected.join(', ')}) in tool or retrieved content`,
    };
  }
  const claim = redact(p.content.claim).text;
  const left = sensitiveLeft(claim);
  if (left.length > 0) return reject('sensitive_data', `claim still contains ${left.join(', ')}`);
  const meaning = checkMeaning(claim, shape.data.structure, cited);
  if (meaning) return reject(meaning.rule, meaning.detail);
  const support = claimSupport(claim, cited, shape.data.structure);
  if (support < SUPPORT_MIN_COVERAGE) {
    return reject(
      'claim_unsupported',
      `only ${Math.round(support * 100)}% of the claim's words occur in the cited records`,
    );
  }
  const scope = checkScopeBreadth(p.content.scope, {
    userIds: cited.map((r) => r.userId),
    sessionIds: cited.map((r) => r.sessionId),
    agentIds: cited.map((r) => r.agentId),
    taskTypes: cited.map((r) => r.taskType),
  });
  if (!scope.ok) return reject('scope_too_wide', scope.reason);
  if (toolDerived(cited) && !TOOL_DERIVED_SOURCE_KINDS.has(p.content.sourceKind)) {
    return reject('untrusted_source_kind', `only tool or retrieved records back a ${p.content.sourceKind} note`);
  }
  if (!withinCap(p.content.confidence, p.content.sourceKind)) {
    return reject(
      'confidence_over_cap',
      `confidence ${p.content.confidence} exceeds the cap for ${p.content.sourceKind}`,
    );
  }
  return { verdict: 'accept' };
}

/** Instruction kinds in the untrusted records cited, and in the claim when any cited record is untrusted. */
function untrustedInstructions(rawClaim: string, cited: readonly RawRecord[]): string[] {
  const untrusted = cited.filter(isUntrusted);
  if (untrusted.length === 0) return [];
  return [...new Set([rawClaim, ...untrusted.map(untrustedText)].flatMap(instructionKinds))];
}

/**
 * What the claim means checked against its evidence: with a structure, each field and the claim
 * against the fields; without one, the claim must not invert its evidence nor state a day the
 * evidence does not speak of.
 */
function checkMeaning(
  claim: string,
  structure: ParsedNoteStructure | undefined,
  cited: readonly RawRecord[],
): MeaningFailure | undefined {
  if (structure) return checkStructure(structure, claim, cited);
  const inverted = invertsEvidence(
    claim,
    cited.map((r) => recordText(r)),
  );
  if (inverted) {
    return { rule: 'polarity_mismatch', detail: `the claim turns around ${inverted.flipped.join(', ')}` };
  }
  const period = unsupportedPeriod(absoluteDates(claim), cited);
  if (period) return { rule: 'time_mismatch', detail: `no cited record speaks of ${period}` };
  return undefined;
}

/**
 * Share of the claim's words (in comparable forms) that occur in the cited records or, for a
 * structured note, in its fields: one signal among the checks of meaning, never enough alone.
 */
export function claimSupport(claim: string, cited: readonly RawRecord[], structure?: ParsedNoteStructure): number {
  // Absolute dates are checked by the time rule, against the day each record speaks of.
  const undated = absoluteDates(claim).reduce((text, m) => text.replace(m.text, ' '), claim);
  const words = phraseTokens(undated).filter(
    (t) => !TEMPLATE_WORDS.has(t) && !TEMPLATE_VOCABULARY.has(t) && !t.startsWith('redacted_'),
  );
  // Who wrote a record, and for which task type, is part of what it shows (a claim may name them).
  const ids = (r: RawRecord) => evidenceForms(`${r.userId ?? ''} ${r.agentId} ${r.taskType ?? ''}`);
  const known = unionOfForms([
    ...cited.flatMap((r) => [recordForms(r), ids(r)]),
    ...(structure ? [evidenceForms(structureText(structure)), CONNECTIVE_FORMS] : []),
  ]);
  const distinct = new Set(words);
  if (distinct.size === 0) return 1;
  const missing = new Set(missingTokens(words, known).map((m) => m.token));
  return (distinct.size - missing.size) / distinct.size;
}

/** The connectives templates put between a structure's fields: a claim may use them too. */
const CONNECTIVE_FORMS = evidenceForms(TEMPLATE_CONNECTIVES);

/** The words a claim may take from its structure: its fields (the connectives are CONNECTIVE_FORMS). */
function structureText(s: ParsedNoteStructure): string {
  const conditions = s.conditions.map((c) => `${c.field} ${String(c.value)}`);
  const time = [s.time?.at, s.time?.until, s.time?.by]
    .filter((t): t is string => !!t)
    .map((t) => formatMention({ at: new Date(t), precision: 'day' }));
  return [s.subject.id, s.attribute, s.value, s.contrast ?? '', ...conditions, ...time].join(' ');
}
