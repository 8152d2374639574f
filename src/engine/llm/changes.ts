import { confirm } from '../../../policies/confidence.ts';
import { redactLeaves } from '../../../policies/redaction-fields.ts';
import { capEvidence } from '../../../policies/reconcile.ts';
import { contentTokens, recordText } from '../../../policies/text.ts';
import { validateProposal, type ResolvedRecord } from '../../../policies/validation.ts';
import type { ArchivedRecord, Episode, Proposal } from '../../contracts/episode.ts';
import { formatIssues } from '../../contracts/format-issues.ts';
import type { NoteScope } from '../../contracts/note.ts';
import { normalizePhrase, type NoteStructure } from '../../contracts/note-structure.ts';
import type { ActiveNote, EngineRefusal } from '../types.ts';
import { Change, type CreateChange, type ReinforceChange, type RetireChange, type ReviseChange } from './answer.ts';
import type { BatchItem, BatchView } from './batch-view.ts';
import { fallbackClaim, toStructure, withAbsoluteDates } from './claim.ts';

/** Why the engine refuses a model's change before validation sees it. */
export const ENGINE_REFUSAL_RULES = [
  'change_malformed',
  'finding_unknown',
  'record_not_listed',
  'note_not_shown',
  'note_version_stale',
  'note_changed_twice',
  'note_unrelated',
] as const;

/** Words a retirement's records (or a revision without structure) must share with the note's claim. @default 2 */
export const RELATED_NOTE_MIN_SHARED_WORDS = 2;

type Outcome = { proposal: Proposal } | { refusal: EngineRefusal };

/**
 * The model's changes as proposals, each on its own: a change that breaks a rule is refused with
 * it and the others go on. A note may change once per call, and only if it was shown.
 */
export function readChanges(raw: readonly unknown[], view: BatchView, model: string) {
  const proposals: Proposal[] = [];
  const refused: EngineRefusal[] = [];
  const changed = new Set<string>();
  for (const change of raw) {
    const outcome = readChange(change, view, model, changed);
    if ('refusal' in outcome) refused.push(outcome.refusal);
    else {
      proposals.push(outcome.proposal);
      if (outcome.proposal.noteId) changed.add(outcome.proposal.noteId);
    }
  }
  return { proposals, refused, changed };
}

function readChange(raw: unknown, view: BatchView, model: string, changed: ReadonlySet<string>): Outcome {
  const refuse = (rule: (typeof ENGINE_REFUSAL_RULES)[number] | string, detail: string): Outcome => ({
    refusal: { rule, detail, proposal: redactLeaves(raw) },
  });
  const parsed = Change.safeParse(raw);
  if (!parsed.success) return refuse('change_malformed', formatIssues(parsed.error.issues, { root: '(change)' }));
  const c = parsed.data;
  const item = view.items[c.finding - 1];
  if (!item) return refuse('finding_unknown', `finding ${c.finding} does not exist (1–${view.items.length})`);
  const outside = c.records.find((r) => r < 1 || r > view.records.length);
  if (outside !== undefined)
    return refuse('record_not_listed', `record ${outside} is not in the list (1–${view.records.length})`);
  const cited = [...new Set(c.records)].map((r) => view.records[r - 1] as ArchivedRecord);
  if (c.op === 'create') return { proposal: created(c, item, cited, model) };
  const note = view.notes.find((n) => n.noteId === c.note);
  if (!note) return refuse('note_not_shown', `note ${c.note} was not among the notes shown`);
  if (note.version !== c.version)
    return refuse('note_version_stale', `note ${c.note} is at version ${note.version}, not ${c.version}`);
  if (changed.has(note.noteId)) return refuse('note_changed_twice', `note ${c.note} was already changed`);
  switch (c.op) {
    case 'revise': {
      const structure = toStructure(c.structure, cited);
      if (!concerns(note, cited, structure))
        return refuse('note_unrelated', `the revision is not about note ${c.note}'s subject`);
      return { proposal: revised(c, note, structure, item, cited, model) };
    }
    case 'reinforce': {
      // The note's statement must hold on the new records alone, by the same validation as any note.
      const verdict = validateProposal(
        { ...item.fallback, content: { ...note.content, evidence: cited.map((r) => r.ref) } },
        item.episode.tenantId,
        resolvedOf(cited),
      );
      if (verdict.verdict !== 'accept') return refuse(verdict.rule, `reinforcing ${c.note}: ${verdict.detail}`);
      return { proposal: reinforced(c, note, item, cited, model) };
    }
    case 'retire':
      if (!concerns(note, cited)) return refuse('note_unrelated', `the cited records do not speak of note ${c.note}`);
      return { proposal: retired(c, note, item, cited, model) };
  }
}

function created(c: CreateChange, item: BatchItem, cited: ArchivedRecord[], model: string): Proposal {
  const structure = toStructure(c.structure, cited);
  const claim = withAbsoluteDates(c.claim?.trim() || fallbackClaim(c.kind, structure), cited);
  const last = latestObserved(cited);
  const { validUntil: _ignored, ...base } = item.fallback.content;
  return {
    ...item.fallback,
    op: 'create',
    content: {
      ...base,
      kind: c.kind,
      scope: scopeOf(c.scope, item.episode, structure, cited),
      claim,
      structure,
      evidence: cited.map((r) => r.ref),
      validFrom: last,
      lastConfirmedAt: last,
      ...(structure.time?.until ? { validUntil: structure.time.until } : {}),
    },
    reason: `${item.fallback.reason} (written by ${model})`,
  };
}

function revised(
  c: ReviseChange,
  note: ActiveNote,
  structure: NoteStructure,
  item: BatchItem,
  cited: ArchivedRecord[],
  model: string,
): Proposal {
  const claim = withAbsoluteDates(c.claim?.trim() || fallbackClaim(note.content.kind, structure), cited);
  const last = latestObserved(cited);
  const { sourceKind, confidence } = item.fallback.content;
  return {
    op: 'revise',
    noteId: note.noteId,
    expectedVersion: note.version,
    content: {
      ...note.content,
      claim,
      structure,
      evidence: cited.map((r) => r.ref),
      sourceKind,
      confidence,
      validFrom: last,
      lastConfirmedAt: last,
      validUntil: structure.time?.until ?? null,
      contradictedAt: null,
    },
    finding: item.finding.type,
    reason: `revised by ${model} after ${item.finding.type} in ${item.episode.key}`,
  };
}

function reinforced(
  c: ReinforceChange,
  note: ActiveNote,
  item: BatchItem,
  cited: ArchivedRecord[],
  model: string,
): Proposal {
  const refs = new Map([...note.content.evidence, ...cited.map((r) => r.ref)].map((r) => [r.recordId, r]));
  const last = latestObserved(cited);
  return {
    op: 'reinforce',
    noteId: c.note,
    expectedVersion: note.version,
    content: {
      ...note.content,
      evidence: capEvidence([...refs.values()]),
      sourceCount: note.content.sourceCount + 1,
      confidence: confirm(note.content.confidence, note.content.sourceKind),
      lastConfirmedAt: last > note.content.lastConfirmedAt ? last : note.content.lastConfirmedAt,
    },
    finding: item.finding.type,
    reason: `confirmed again (${model}): ${item.finding.type} in ${item.episode.key}`,
  };
}

/** The note keeps its evidence (what it claimed and why); the records that ended it are named in the reason. */
function retired(c: RetireChange, note: ActiveNote, item: BatchItem, cited: ArchivedRecord[], model: string): Proposal {
  return {
    op: 'retire',
    noteId: c.note,
    expectedVersion: note.version,
    content: { ...note.content, contradictedAt: latestObserved(cited) },
    finding: item.finding.type,
    reason: `retired by ${model}: ${c.reason.trim()} (records ${cited.map((r) => r.ref.recordId).join(', ')})`,
  };
}

/**
 * Whether a change is about this note: a revision keeps the note's subject; records that retire
 * it name its subject or share words with its claim.
 */
function concerns(note: ActiveNote, cited: readonly ArchivedRecord[], structure?: NoteStructure): boolean {
  const own = note.content.structure;
  if (own && structure)
    return own.subject.type === structure.subject.type && sameName(own.subject.id, structure.subject.id);
  const text = cited.map((r) => `${recordText(r.record)} ${r.record.userId ?? ''}`).join(' ');
  if (own && normalizePhrase(text).includes(normalizePhrase(own.subject.id))) return true;
  const words = new Set(contentTokens(text));
  const shared = new Set(contentTokens(note.content.claim).filter((t) => words.has(t)));
  return shared.size >= RELATED_NOTE_MIN_SHARED_WORDS;
}

const sameName = (a: string, b: string) => normalizePhrase(a) === normalizePhrase(b);

/** The narrowest level the model chose, keyed by this episode; a user scope belongs to the user the note is about when that user spoke. */
function scopeOf(
  level: NoteScope['level'],
  ep: Episode,
  s: NoteStructure,
  cited: readonly ArchivedRecord[],
): NoteScope {
  switch (level) {
    case 'session':
      return { level, key: ep.sessionId };
    case 'user': {
      const spoke = cited.some((r) => r.record.userId === s.subject.id);
      return { level, key: s.subject.type === 'user' && spoke ? s.subject.id : (ep.userId ?? ep.agentId) };
    }
    case 'agent':
      return { level, key: ep.agentId };
    case 'task_type':
      return ep.taskType ? { level, key: ep.taskType } : { level: 'agent', key: ep.agentId };
    case 'tenant':
      return { level, key: ep.tenantId };
  }
}

function latestObserved(cited: readonly ArchivedRecord[]): string {
  return cited
    .map((c) => c.record.observedAt)
    .sort()
    .at(-1) as string;
}

function resolvedOf(cited: readonly ArchivedRecord[]): Map<string, ResolvedRecord> {
  return new Map(cited.map((c) => [c.record.id, { record: c.record, contentHash: c.ref.contentHash }]));
}
