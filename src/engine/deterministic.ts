import { initialConfidence } from '../../policies/confidence.ts';
import { contradict } from '../../policies/confidence.ts';
import { PREFERENCE_MARKERS } from '../../policies/attribution.ts';
import { contentTokens, recordText, sentences } from '../../policies/text.ts';
import type { ArchivedRecord, Episode, Finding, Proposal } from '../contracts/episode.ts';
import type { NoteContent, NoteKind, NoteScope, SourceKind } from '../contracts/note.ts';
import type { ActiveNote, NoteEngine, ProposeInput } from './types.ts';

/**
 * The default note engine: no model, only the structure of the records (corrections, tool
 * errors and retries, stated preferences, outcome contrasts, tool content). Claims are
 * extractive, so validation can check them word by word against the records they cite.
 */
export function createDeterministicEngine(): NoteEngine {
  return {
    name: 'deterministic',
    async propose(input: ProposeInput) {
      const byKey = new Map(input.episodes.map((e) => [e.key, e]));
      const active = new Map(input.activeNotes.map((n) => [n.noteId, n]));
      const proposals = input.findings.flatMap((f) => {
        const episode = byKey.get(f.episodeKey);
        return episode ? proposalsFor(f, episode, active, input.now) : [];
      });
      return { proposals, llmTokens: 0 };
    },
  };
}

function proposalsFor(f: Finding, ep: Episode, active: Map<string, ActiveNote>, now: Date): Proposal[] {
  switch (f.type) {
    case 'factual_conflict':
      return [fromCorrection(f, ep)];
    case 'stated_preference':
      return [
        create(f, ep, 'preference', 'user_requirement', userScope(ep), cleanPreference(preferencePart(f.summary))),
      ];
    case 'stated_fact':
      return [create(f, ep, 'fact', 'user_statement', speakerScope(f, ep), statedBy(f))];
    case 'tool_error':
      return [create(f, ep, 'tool_behavior', 'tool_fact', { level: 'agent', key: ep.agentId }, toolErrorClaim(f))];
    case 'tool_content':
      return [create(f, ep, 'fact', 'tool_fact', taskScope(ep), f.summary.trim())];
    case 'omitted_step':
      return [
        create(
          f,
          ep,
          'strategy',
          'inference',
          taskScope(ep),
          `Successful ${ep.taskType} tasks call ${f.tool}; a failed one skipped it.`,
        ),
      ];
    case 'outdated_constraint':
      return (f.noteIds ?? []).flatMap((id) => contradictNote(f, active.get(id), now));
  }
}

function create(
  f: Finding,
  ep: Episode,
  kind: NoteKind,
  sourceKind: SourceKind,
  scope: NoteScope,
  claim: string,
): Proposal {
  const last =
    f.evidence.at(-1)?.record.observedAt ?? ep.records.at(-1)?.record.observedAt ?? new Date(0).toISOString();
  const content: NoteContent = {
    scope,
    kind,
    claim: clip(claim),
    evidence: f.evidence.map((e) => e.ref),
    sourceKind,
    confidence: initialConfidence(sourceKind),
    importance: importanceOf(f),
    validFrom: last,
    sourceCount: 1,
    lastConfirmedAt: last,
  };
  return { op: 'create', content, finding: f.type, reason: `${f.type} in ${ep.key}` };
}

/** A correction states what is true; the contradicted agent message is evidence of what went wrong. */
function fromCorrection(f: Finding, ep: Episode): Proposal {
  const text = generalPart(f.summary);
  const preference = /\b(i (asked|want|prefer|like|need)|always|never)\b/i.test(text);
  return preference
    ? create(f, ep, 'preference', 'user_correction', userScope(ep), text)
    : create(f, ep, 'fact', 'user_correction', taskScope(ep), text);
}

/** Drops the "that is wrong" part and episode-specific answers, keeping the general statement. */
export function generalPart(correction: string): string {
  const parts = sentences(correction)
    .map((s) => s.replace(/^(no|nope|wrong|that('s| is) (wrong|not right|incorrect|not what i asked))[,:.!]?\s*/i, ''))
    .filter((s) => s.length > 0);
  const general = parts.filter((s) => !/^(the|your) (total|answer|result|sum)\b/i.test(s));
  const chosen = (general.length > 0 ? general : parts).join(' ');
  return chosen.charAt(0).toUpperCase() + chosen.slice(1);
}

/** Longest claim this engine writes; a claim is one lesson, not a message. @default 600 */
export const MAX_CLAIM_CHARS = 600;

/** The sentences of a long message that state the preference (its markers), within MAX_CLAIM_CHARS. */
function preferencePart(text: string): string {
  if (text.length <= MAX_CLAIM_CHARS) return text;
  const marked = sentences(text).filter((s) => PREFERENCE_MARKERS.test(s));
  return clip((marked.length > 0 ? marked : [text]).join(' '));
}

/** Cuts at the last word boundary within MAX_CLAIM_CHARS, so the claim stays extractive. */
function clip(text: string): string {
  if (text.length <= MAX_CLAIM_CHARS) return text;
  const cut = text.lastIndexOf(' ', MAX_CLAIM_CHARS);
  return text.slice(0, cut > 0 ? cut : MAX_CLAIM_CHARS);
}

function cleanPreference(text: string): string {
  const s = text.replace(/^please,?\s*/i, '').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Names who said it, so a question about that person finds the statement. */
function statedBy(f: Finding): string {
  const speaker = f.evidence[0]?.record.userId;
  return speaker ? `${speaker}: ${f.summary}` : f.summary;
}

function toolErrorClaim(f: Finding): string {
  const [call, error, retry] = f.evidence.filter((e) => e.record.kind !== 'tool_result');
  const argsOf = (r: ArchivedRecord | undefined) =>
    JSON.stringify((r?.record.payload as { args?: unknown } | undefined)?.args ?? {});
  const base = `${f.tool ?? 'A tool'} failed with ${argsOf(call)}: ${error?.record.text ?? f.summary}`;
  return retry ? `${base}. Retrying with ${argsOf(retry)} succeeded.` : `${base}.`;
}

function contradictNote(f: Finding, note: ActiveNote | undefined, now: Date): Proposal[] {
  if (!note) return [];
  // Replaying a failure the note already cites (tonight's run over last night's records) is not a new contradiction.
  const cited = new Set(note.content.evidence.map((e) => e.recordId));
  if (f.evidence.every((e) => cited.has(e.ref.recordId))) return [];
  if (!troubleConcerns(f, note)) return [];
  const content: NoteContent = {
    ...note.content,
    confidence: contradict(note.content.confidence),
    contradictedAt: now.toISOString(),
    evidence: [...note.content.evidence, ...f.evidence.map((e) => e.ref)],
  };
  return [
    { op: 'revise', noteId: note.noteId, expectedVersion: note.version, content, finding: f.type, reason: f.summary },
  ];
}

/** Words a failure or correction must share with a recalled note's claim before it counts against the note. @default 2 */
export const RELATED_TROUBLE_MIN_SHARED_WORDS = 2;

/**
 * A task that went wrong after recalling several notes says nothing about the notes that have
 * nothing to do with what went wrong: a refund correction does not contradict a note about CRM
 * page sizes that happened to be recalled for the same task. Only a note whose claim shares words
 * with the failure or the correction is contradicted.
 */
function troubleConcerns(f: Finding, note: ActiveNote): boolean {
  const trouble = f.evidence
    .filter((e) => e.record.kind !== 'memory_used')
    .map((e) => recordText(e.record))
    .join(' ');
  const troubleWords = new Set(contentTokens(trouble));
  const shared = new Set(contentTokens(note.content.claim).filter((t) => troubleWords.has(t)));
  return shared.size >= RELATED_TROUBLE_MIN_SHARED_WORDS;
}

function importanceOf(f: Finding): number {
  const weights: Record<Finding['type'], number> = {
    factual_conflict: 0.9,
    stated_preference: 0.8,
    stated_fact: 0.5,
    outdated_constraint: 0.8,
    tool_error: 0.7,
    omitted_step: 0.6,
    tool_content: 0.4,
  };
  return weights[f.type];
}

const userScope = (ep: Episode): NoteScope =>
  ep.userId ? { level: 'user', key: ep.userId } : { level: 'agent', key: ep.agentId };
/** In a conversation between people, each statement belongs to whoever said it, not to the episode's first user. */
const speakerScope = (f: Finding, ep: Episode): NoteScope => {
  const speaker = f.evidence[0]?.record.userId;
  return speaker ? { level: 'user', key: speaker } : userScope(ep);
};
const taskScope = (ep: Episode): NoteScope =>
  ep.taskType ? { level: 'task_type', key: ep.taskType } : { level: 'agent', key: ep.agentId };
