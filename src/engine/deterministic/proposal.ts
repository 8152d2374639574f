import { initialConfidence } from '../../../policies/confidence.ts';
import { renderClaim } from '../../../policies/note-templates.ts';
import { redact } from '../../../policies/redaction.ts';
import type { Episode, Finding, Proposal } from '../../contracts/episode.ts';
import type { NoteContent, NoteKind, NoteScope, SourceKind } from '../../contracts/note.ts';
import type { NoteStructure } from '../../contracts/note-structure.ts';

/** Longest claim this engine writes; a claim is one lesson, not a message. @default 600 */
export const MAX_CLAIM_CHARS = 600;

/** What a note says and where it applies; the claim is rendered from the structure. */
export interface Lesson {
  kind: NoteKind;
  sourceKind: SourceKind;
  scope: NoteScope;
  structure: NoteStructure;
}

export function create(f: Finding, ep: Episode, lesson: Lesson): Proposal {
  const last =
    f.evidence.at(-1)?.record.observedAt ?? ep.records.at(-1)?.record.observedAt ?? new Date(0).toISOString();
  const structure = fitted(lesson.kind, redacted(lesson.structure));
  const content: NoteContent = {
    scope: lesson.scope,
    kind: lesson.kind,
    claim: renderClaim(lesson.kind, structure),
    evidence: uniqueRefs(f),
    sourceKind: lesson.sourceKind,
    confidence: initialConfidence(lesson.sourceKind),
    importance: IMPORTANCE[f.type],
    validFrom: last,
    sourceCount: 1,
    lastConfirmedAt: last,
    structure,
  };
  return { op: 'create', content, finding: f.type, reason: `${f.type} in ${ep.key}` };
}

/** Personal data is redacted in the fields, so the claim rendered from them carries none either. */
function redacted(s: NoteStructure): NoteStructure {
  return {
    ...s,
    value: redact(s.value).text,
    ...(s.contrast ? { contrast: redact(s.contrast).text } : {}),
  };
}

/** The value shortened at a word until the rendered claim fits MAX_CLAIM_CHARS, so claim and structure still agree. */
function fitted(kind: NoteKind, s: NoteStructure): NoteStructure {
  const excess = renderClaim(kind, s).length - MAX_CLAIM_CHARS;
  if (excess <= 0) return s;
  const limit = Math.max(1, s.value.length - excess - 1);
  const cut = s.value.lastIndexOf(' ', limit);
  return { ...s, value: s.value.slice(0, cut > 0 ? cut : limit) };
}

function uniqueRefs(f: Finding) {
  const seen = new Set<string>();
  return f.evidence
    .filter((e) => {
      if (seen.has(e.ref.recordId)) return false;
      seen.add(e.ref.recordId);
      return true;
    })
    .map((e) => e.ref);
}

const IMPORTANCE: Record<Finding['type'], number> = {
  factual_conflict: 0.9,
  stated_preference: 0.8,
  stated_fact: 0.5,
  outdated_constraint: 0.8,
  tool_error: 0.7,
  omitted_step: 0.6,
  reported_problem: 0.6,
  unchecked_answer: 0.6,
  no_tool_call: 0.6,
  tool_content: 0.4,
  episode_digest: 0.5,
};

/** Whoever said the finding's first record; the episode's user otherwise. */
export const speakerOf = (f: Finding, ep: Episode): string | undefined => f.evidence[0]?.record.userId ?? ep.userId;

export const userScope = (f: Finding, ep: Episode): NoteScope => {
  const speaker = speakerOf(f, ep);
  return speaker ? { level: 'user', key: speaker } : { level: 'agent', key: ep.agentId };
};
export const taskScope = (ep: Episode): NoteScope =>
  ep.taskType ? { level: 'task_type', key: ep.taskType } : { level: 'agent', key: ep.agentId };
export const sessionScope = (ep: Episode): NoteScope => ({ level: 'session', key: ep.sessionId });
