import type { Proposal } from '../src/contracts/episode.ts';
import { NoteContent } from '../src/contracts/note.ts';
import { formatIssues } from '../src/contracts/format-issues.ts';
import type { RawRecord } from '../src/contracts/raw-record.ts';
import { withinCap } from './confidence.ts';
import { looksLikeInstruction, UNTRUSTED_SOURCES } from './injection.ts';
import { sensitiveLeft } from './redaction.ts';
import { TEMPLATE_VOCABULARY } from './note-templates.ts';
import { checkScopeBreadth } from './scope.ts';
import { contentTokens, coverage, recordText } from './text.ts';

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
  'content_invalid',
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

/** `resolved` maps record id → the archived record it resolved to (absent: did not resolve). */
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
  const left = sensitiveLeft(p.content.claim);
  if (left.length > 0) return reject('sensitive_data', `claim still contains ${left.join(', ')}`);
  if (cited.some((r) => UNTRUSTED_SOURCES.has(r.source ?? '')) && looksLikeInstruction(p.content.claim)) {
    return {
      verdict: 'quarantine',
      rule: 'untrusted_instruction',
      detail: 'instruction-like text from tool or retrieved content',
    };
  }
  const support = claimSupport(p.content.claim, cited);
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
  if (!withinCap(p.content.confidence, p.content.sourceKind)) {
    return reject(
      'confidence_over_cap',
      `confidence ${p.content.confidence} exceeds the cap for ${p.content.sourceKind}`,
    );
  }
  return { verdict: 'accept' };
}

export function claimSupport(claim: string, cited: readonly RawRecord[]): number {
  const words = contentTokens(claim).filter(
    (t) => !TEMPLATE_WORDS.has(t) && !TEMPLATE_VOCABULARY.has(t) && !t.startsWith('redacted_'),
  );
  // Who wrote a record, and for which task type, is part of what it shows (a claim may name them).
  const evidence = cited.flatMap((r) => contentTokens(`${recordText(r)} ${r.userId ?? ''} ${r.taskType ?? ''}`));
  // JSON rendering of arguments in a claim splits differently from the payload's leaves.
  const evidenceParts = new Set(evidence.flatMap((t) => [t, ...t.split(/[^a-z0-9$]+/)]));
  const claimParts = words.flatMap((t) =>
    evidenceParts.has(t) ? [t] : t.split(/[^a-z0-9$]+/).filter((x) => x.length > 0),
  );
  return coverage(claimParts, [...evidenceParts]);
}
