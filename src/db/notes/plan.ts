import type { AuditAction, AuditEntry } from '../../contracts/audit.ts';
import type { NoteStatus, NoteVersion } from '../../contracts/note.ts';
import { chainAuditEntries } from '../audit/hash.ts';
import type { AuditKey } from '../audit/keyed.ts';
import { NoteAlreadyExistsError, NoteVersionConflictError, NoteVersionNotFoundError } from '../errors.ts';
import { type NoteChange, type ParsedNoteOp, type VersionAction } from './ops.ts';

/** A version to insert: the contract fields plus where its embedding comes from. */
export interface VersionDraft extends Omit<NoteVersion, 'createdAt'> {
  /** An explicit embedding, or the persisted version of the same note to copy it from. */
  embedding: { vector: number[] } | { copyFrom: number } | null;
}

/** The final pointer state of one note after the batch. */
export interface PointerMove {
  noteId: string;
  version: number;
  status: NoteStatus;
  /** The pointer's version before the batch; null when the batch created the note. */
  startVersion: number | null;
}

export interface BatchPlan {
  versions: VersionDraft[];
  pointers: PointerMove[];
  audit: AuditEntry[];
  changes: NoteChange[];
}

export interface PlanInput {
  tenantId: string;
  runId: string;
  actor: string;
  at: string;
  ops: ParsedNoteOp[];
  /** Current versions (as persisted, under lock) of every note the ops name that exists. */
  current: Map<string, NoteVersion>;
  /** Persisted versions that rollbacks target, keyed `${noteId}#${version}`. */
  targets: Map<string, NoteVersion>;
  auditHead: { seq: number; hash: string } | undefined;
  /** Signs the batch's audit entries (keyed entries); absent → legacy entries. */
  auditKey?: AuditKey;
}

/** Status a version action writes unless the op names one. undefined → keep the current. */
const DEFAULT_STATUS: Record<VersionAction, NoteStatus | undefined> = {
  revise: undefined,
  reinforce: undefined,
  retire: 'retired',
  quarantine: 'quarantined',
  supersede: 'superseded',
  rollback: undefined,
  approve: 'active',
  reject: 'retired',
};

export const versionKey = (noteId: string, version: number): string => `${noteId}#${version}`;

/**
 * Turns a batch of ops into rows, pure and in op order, so several ops on one note in one batch
 * chain (each sees the version the previous one wrote). Throws the conflict errors before any
 * write happens, which keeps the whole batch all-or-nothing.
 */
export function planBatch(input: PlanInput): BatchPlan {
  const heads = new Map<string, VersionDraft>();
  for (const [noteId, v] of input.current) heads.set(noteId, { ...v, embedding: { copyFrom: v.version } });
  const written = new Map<string, VersionDraft>();
  const startVersions = new Map<string, number | null>();
  const versions: VersionDraft[] = [];
  const pending: Array<{
    action: AuditAction;
    noteId: string;
    fromVersion: number | null;
    toVersion: number;
    reason: string;
  }> = [];

  for (const op of input.ops) {
    const head = heads.get(op.noteId);
    if (!startVersions.has(op.noteId)) startVersions.set(op.noteId, input.current.get(op.noteId)?.version ?? null);
    const draft = op.op === 'create' ? createDraft(input, op, head) : nextDraft(input, op, head, written);
    heads.set(op.noteId, draft);
    written.set(versionKey(draft.noteId, draft.version), draft);
    versions.push(draft);
    pending.push({
      action: op.op === 'create' ? 'create' : op.action,
      noteId: op.noteId,
      fromVersion: op.op === 'create' ? null : op.expectedVersion,
      toVersion: draft.version,
      reason: op.reason,
    });
  }

  // pending[i] records versions[i]: each entry covers the digest of the version it wrote.
  const audit = chainAuditEntries(
    input.auditHead,
    pending.map((p, i) => ({ tenantId: input.tenantId, at: input.at, actor: input.actor, ...p, version: versions[i] })),
    input.auditKey,
  );
  const changes = pending.map((p, i) => ({
    noteId: p.noteId,
    action: p.action,
    fromVersion: p.fromVersion,
    toVersion: p.toVersion,
    auditSeq: audit[i]?.seq ?? 0,
  }));
  const pointers = [...startVersions].map(([noteId, startVersion]) => {
    const head = heads.get(noteId) as VersionDraft;
    return { noteId, version: head.version, status: head.status, startVersion };
  });
  return { versions, pointers, audit, changes };
}

type CreateOp = Extract<ParsedNoteOp, { op: 'create' }>;
type NewVersionOp = Extract<ParsedNoteOp, { op: 'newVersion' }>;

function createDraft(input: PlanInput, op: CreateOp, head: VersionDraft | undefined): VersionDraft {
  if (head) throw new NoteAlreadyExistsError(input.tenantId, op.noteId, head.version);
  const c = op.content;
  return {
    noteId: op.noteId,
    tenantId: input.tenantId,
    version: 1,
    status: op.status,
    scope: c.scope,
    kind: c.kind,
    claim: c.claim,
    evidence: c.evidence,
    sourceKind: c.sourceKind,
    confidence: c.confidence,
    importance: c.importance,
    validFrom: c.validFrom,
    validUntil: c.validUntil ?? null,
    supersededBy: null,
    sourceCount: c.sourceCount,
    lastConfirmedAt: c.lastConfirmedAt,
    contradictedAt: c.contradictedAt ?? null,
    structure: c.structure ?? null,
    createdByRun: input.runId,
    embedding: op.embedding ? { vector: op.embedding } : null,
  };
}

function nextDraft(
  input: PlanInput,
  op: NewVersionOp,
  head: VersionDraft | undefined,
  written: Map<string, VersionDraft>,
): VersionDraft {
  const actual = head?.version ?? 0;
  if (actual !== op.expectedVersion)
    throw new NoteVersionConflictError(input.tenantId, op.noteId, op.expectedVersion, actual);
  const base = op.action === 'rollback' ? rollbackBase(input, op, written) : (head as VersionDraft);
  // Parsed with the batch (NoteBatch): a second parse of every evidence list cost a third of planning.
  const changes = op.changes ?? {};
  const claimChanged = changes.claim !== undefined && changes.claim !== base.claim;
  return {
    ...base,
    ...changes,
    validUntil: changes.validUntil === undefined ? base.validUntil : changes.validUntil,
    contradictedAt: changes.contradictedAt === undefined ? base.contradictedAt : changes.contradictedAt,
    version: actual + 1,
    status: op.status ?? DEFAULT_STATUS[op.action] ?? base.status,
    supersededBy:
      op.action === 'supersede' ? (op.supersededBy ?? null) : op.action === 'rollback' ? base.supersededBy : null,
    createdByRun: input.runId,
    // The embedding is a projection of the claim: reuse it while the claim is unchanged.
    embedding: op.embedding ? { vector: op.embedding } : claimChanged ? null : base.embedding,
  };
}

function rollbackBase(input: PlanInput, op: NewVersionOp, written: Map<string, VersionDraft>): VersionDraft {
  const target = op.targetVersion as number;
  const key = versionKey(op.noteId, target);
  const inBatch = written.get(key);
  if (inBatch) return inBatch;
  const persisted = input.targets.get(key);
  if (!persisted) throw new NoteVersionNotFoundError(input.tenantId, op.noteId, target);
  return { ...persisted, embedding: { copyFrom: persisted.version } };
}
