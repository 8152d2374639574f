import {
  applyNoteBatch,
  applyNoteBatchWriting,
  assertRunNotFenced,
  NoteOp,
  selectErasedAmong,
  selectRunBatch,
  selectRunBatches,
  selectVersions,
  withTenant,
  type AppliedBatch,
  type ParsedNoteOp,
} from '../db/index.ts';
import { FailureType } from '../contracts/failure-types.ts';
import { PermanentFailure, type Ports } from '../ports.ts';
import { storedBatchNo } from './replay-batch.ts';

/** Approval batches are numbered after every replay batch, so their idempotency keys never collide. */
export const APPROVAL_BATCH_OFFSET = 1_000_000;

export interface BatchKey {
  runId: string;
  tenantId: string;
  batchNo: number;
}

export interface CommitBatchInput extends BatchKey {
  actor: string;
  staged: boolean;
  /** Commit the batch's re-planned operations (see ReplayBatchInput.replan). */
  replan?: boolean;
}

/**
 * One version a commit wrote: ids, versions, action and status only. A commit's result is kept in
 * the workflow's history for the namespace's retention, where an erasure cannot reach, so it
 * never carries a claim (the words of the records behind it); the operator reads the claim with
 * `nocturne notes show`. Histories recorded before carry `claim` and `previousClaim` excerpts.
 */
export interface CommittedChange {
  noteId: string;
  action: string;
  fromVersion: number | null;
  toVersion: number;
  status: string;
  /** Only in histories recorded before claims were kept out of them. */
  claim?: string;
  /** Only in histories recorded before claims were kept out of them. */
  previousClaim?: string;
}

export interface CommitResult {
  committed: number;
  quarantined: number;
  changes: CommittedChange[];
}

export interface ResolveStagedInput {
  runId: string;
  tenantId: string;
  decision: 'approve' | 'reject';
  actor: string;
  reason: string;
}

/**
 * Commits a replayed batch in one transaction, idempotent on (run, batch). A staged run
 * writes new notes as `staged` and holds changes to existing notes until approval.
 */
export async function commitBatch(ports: Pick<Ports, 'db'>, input: CommitBatchInput): Promise<CommitResult> {
  const batchNo = storedBatchNo(input.batchNo, input.replan);
  const stored = await storedOps(ports, { ...input, batchNo });
  const ops = stored.flatMap((op) => (input.staged ? stagedForm(op) : [op]));
  if (ops.length === 0) return { committed: 0, quarantined: 0, changes: [] };
  const applied = await applyNoteBatchWriting(
    ports.db,
    { tenantId: input.tenantId, runId: input.runId, batchNo, actor: input.actor, ops },
    undefined,
    { fenceRun: true },
  );
  const quarantined = ops.filter((o) => o.op === 'create' && o.status === 'quarantined').length;
  const changes = await describeChanges(ports, input.tenantId, applied);
  return { committed: applied.result.changes.length - quarantined, quarantined, changes };
}

/**
 * Each change with the status of the version it wrote (no claim: see CommittedChange): known
 * from the write itself, read back only when a retry found the batch applied before.
 */
async function describeChanges(
  ports: Pick<Ports, 'db'>,
  tenantId: string,
  applied: AppliedBatch,
): Promise<CommittedChange[]> {
  const { changes } = applied.result;
  const status = applied.written ?? (await writtenStatus(ports, tenantId, changes));
  return changes.map((c) => ({
    noteId: c.noteId,
    action: c.action,
    fromVersion: c.fromVersion,
    toVersion: c.toVersion,
    status: status.get(`${c.noteId}#${c.toVersion}`) ?? 'unknown',
  }));
}

async function writtenStatus(
  ports: Pick<Ports, 'db'>,
  tenantId: string,
  changes: AppliedBatch['result']['changes'],
): Promise<ReadonlyMap<string, string>> {
  const keys = changes.map((c) => ({ noteId: c.noteId, version: c.toVersion }));
  const versions = await withTenant(ports.db, tenantId, (tx) => selectVersions(tx, { tenantId, keys }));
  return new Map(versions.map((v) => [`${v.noteId}#${v.version}`, v.status]));
}

/** Approve: activate staged notes and apply held changes. Reject: retire staged notes, drop held changes. */
export async function resolveStaged(ports: Pick<Ports, 'db'>, input: ResolveStagedInput): Promise<{ changed: number }> {
  const batches = await withTenant(ports.db, input.tenantId, async (tx) => {
    // Refused even when an erasure left nothing to apply: the operator learns why this run cannot be approved.
    if (input.decision === 'approve') await assertRunNotFenced(tx, input);
    return selectRunBatches(tx, { runId: input.runId });
  });
  let changed = 0;
  for (const b of batches) {
    const ops = b.ops.map((o) => NoteOp.parse(o));
    const erased = await withTenant(ports.db, input.tenantId, (tx) =>
      selectErasedAmong(tx, { noteIds: ops.map((o) => o.noteId) }),
    );
    // A staged note an erasure removed meanwhile is settled already: leave it out.
    const decided = decisionOps(
      ops.filter((o) => !erased.includes(o.noteId)),
      input.decision,
      input.reason,
    );
    if (decided.length === 0) continue;
    // Approving a run that an erasure overlapped would commit what it sampled before; rejecting it only retires.
    const r = await applyNoteBatch(
      ports.db,
      {
        tenantId: input.tenantId,
        runId: input.runId,
        batchNo: APPROVAL_BATCH_OFFSET + b.batchNo,
        actor: input.actor,
        ops: decided,
      },
      undefined,
      { fenceRun: input.decision === 'approve' },
    );
    changed += r.changes.length;
  }
  return { changed };
}

/**
 * The batch's operations as replay stored them. Not parsed here: `applyNoteBatch` parses the
 * batch it is given (a batch's operations are a few hundred kilobytes of evidence lists).
 */
async function storedOps(ports: Pick<Ports, 'db'>, k: BatchKey): Promise<NoteOp[]> {
  const stored = await withTenant(ports.db, k.tenantId, (tx) => selectRunBatch(tx, k));
  if (!stored) throw new PermanentFailure(`run ${k.runId} has no replayed batch ${k.batchNo}`, FailureType.RunNotFound);
  return stored.ops as NoteOp[];
}

/** In a staged run only new notes are written now (as staged); quarantined ones are final anyway. */
function stagedForm(op: NoteOp): NoteOp[] {
  if (op.op !== 'create') return [];
  return [op.status === 'quarantined' ? op : { ...op, status: 'staged' }];
}

function decisionOps(ops: ParsedNoteOp[], decision: 'approve' | 'reject', reason: string): ParsedNoteOp[] {
  const staged = new Set(ops.filter((o) => o.op === 'create' && o.status !== 'quarantined').map((o) => o.noteId));
  const settle: ParsedNoteOp[] = [...staged].map(
    (noteId) =>
      ({
        op: 'newVersion',
        action: decision,
        noteId,
        expectedVersion: 1,
        reason: reason || `${decision}d by operator`,
      }) as ParsedNoteOp,
  );
  if (decision === 'reject') return settle;
  // Held changes to a note created staged in this run now land one version later.
  const held = ops
    .filter((o) => o.op === 'newVersion')
    .map((o) => (o.op === 'newVersion' && staged.has(o.noteId) ? { ...o, expectedVersion: o.expectedVersion + 1 } : o));
  return [...settle, ...held];
}
