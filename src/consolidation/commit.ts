import {
  applyNoteBatch,
  NoteOp,
  selectRunBatch,
  selectRunBatches,
  withTenant,
  type ParsedNoteOp,
} from '../db/index.ts';
import { FailureType } from '../contracts/failure-types.ts';
import { PermanentFailure, type Ports } from '../ports.ts';

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
export async function commitBatch(
  ports: Pick<Ports, 'db'>,
  input: CommitBatchInput,
): Promise<{ committed: number; quarantined: number }> {
  const ops = (await storedOps(ports, input)).flatMap((op) => (input.staged ? stagedForm(op) : [op]));
  if (ops.length === 0) return { committed: 0, quarantined: 0 };
  const result = await applyNoteBatch(ports.db, {
    tenantId: input.tenantId,
    runId: input.runId,
    batchNo: input.batchNo,
    actor: input.actor,
    ops,
  });
  const quarantined = ops.filter((o) => o.op === 'create' && o.status === 'quarantined').length;
  return { committed: result.changes.length - quarantined, quarantined };
}

/** Approve: activate staged notes and apply held changes. Reject: retire staged notes, drop held changes. */
export async function resolveStaged(ports: Pick<Ports, 'db'>, input: ResolveStagedInput): Promise<{ changed: number }> {
  const batches = await withTenant(ports.db, input.tenantId, (tx) => selectRunBatches(tx, { runId: input.runId }));
  let changed = 0;
  for (const b of batches) {
    const ops = b.ops.map((o) => NoteOp.parse(o));
    const decided = decisionOps(ops, input.decision, input.reason);
    if (decided.length === 0) continue;
    const r = await applyNoteBatch(ports.db, {
      tenantId: input.tenantId,
      runId: input.runId,
      batchNo: APPROVAL_BATCH_OFFSET + b.batchNo,
      actor: input.actor,
      ops: decided,
    });
    changed += r.changes.length;
  }
  return { changed };
}

async function storedOps(ports: Pick<Ports, 'db'>, k: BatchKey): Promise<ParsedNoteOp[]> {
  const stored = await withTenant(ports.db, k.tenantId, (tx) => selectRunBatch(tx, k));
  if (!stored) throw new PermanentFailure(`run ${k.runId} has no replayed batch ${k.batchNo}`, FailureType.RunNotFound);
  return stored.ops.map((o) => NoteOp.parse(o));
}

/** In a staged run only new notes are written now (as staged); quarantined ones are final anyway. */
function stagedForm(op: ParsedNoteOp): ParsedNoteOp[] {
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
