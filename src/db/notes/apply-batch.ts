import { createHash } from 'node:crypto';
import { redactContent, redactText } from '../../../policies/redaction-fields.ts';
import type { NoteStatus, NoteVersion } from '../../contracts/note.ts';
import { selectAuditHead, insertAuditEntries } from '../audit/queries.ts';
import { auditKeyOf, type Db, type Queryable } from '../db.ts';
import { BatchKeyReuseError } from '../errors.ts';
import { assertRunNotFenced, assertTenantWritable } from '../tenant-lock.ts';
import { withTenant } from '../tenant.ts';
import { NoteBatch, type BatchResult, type ParsedNoteOp } from './ops.ts';
import { planBatch, versionKey, type BatchPlan } from './plan.ts';
import {
  insertAppliedBatch,
  insertPointers,
  insertVersions,
  lockTenantWrites,
  movePointers,
  selectAppliedBatch,
  selectCurrentVersionsForUpdate,
  selectVersions,
} from './write-queries.ts';

/** Who may write while a tenant's lease is held, and whether the batch's run must be unfenced. */
export interface WriteGuard {
  /** The lease holder writing (an erasure's own note writes); others fail with TenantLockedError. */
  lockHolder?: string;
  /** A run's commit or approval: fails with RunFencedError if an erasure started or ended since the run began. */
  fenceRun?: boolean;
}

/** What {@link applyNoteBatchWriting} did: the batch's result, and what it wrote when it wrote now. */
export interface AppliedBatch {
  result: BatchResult;
  /**
   * The status of each version this call wrote, by `noteId#version`. Absent when the batch had
   * been applied before (a retry): the result is the stored one, and a caller reads statuses.
   */
  written?: ReadonlyMap<string, NoteStatus>;
}

/**
 * Commits a batch of note operations in one transaction, idempotent on (runId, batchNo):
 * a replay of an applied batch writes nothing and returns the stored result. Each op writes one
 * version and one audit entry; a stale `expectedVersion` fails the whole batch with
 * NoteVersionConflictError. While an erasure holds the tenant's lease, nothing is written
 * (TenantLockedError) unless the erasure itself writes.
 */
export async function applyNoteBatch(
  db: Db,
  batch: NoteBatch,
  now: () => Date = () => new Date(),
  guard: WriteGuard = {},
): Promise<BatchResult> {
  return (await applyNoteBatchWriting(db, batch, now, guard)).result;
}

/** {@link applyNoteBatch}, also telling the status of each version it wrote (a commit reports them). */
export async function applyNoteBatchWriting(
  db: Db,
  batch: NoteBatch,
  now: () => Date = () => new Date(),
  guard: WriteGuard = {},
): Promise<AppliedBatch> {
  const b = NoteBatch.parse(batch);
  // Parsed ops have their keys in schema order, so plain JSON is already a canonical form.
  // The actor is left out: a retry is the same batch even if it names its attempt differently.
  const opsHash = createHash('sha256').update(JSON.stringify(b.ops)).digest('hex');
  return withTenant(db, b.tenantId, async (tx) => {
    await lockTenantWrites(tx, { tenantId: b.tenantId });
    // Checked under the lock: a concurrent retry of the same batch waits, then finds the key.
    const applied = await selectAppliedBatch(tx, b);
    if (applied) {
      if (applied.opsHash !== opsHash) throw new BatchKeyReuseError(b.tenantId, b.runId, b.batchNo);
      return { result: applied.result };
    }
    await assertTenantWritable(tx, { tenantId: b.tenantId, ...(guard.lockHolder ? { holder: guard.lockHolder } : {}) });
    if (guard.fenceRun) await assertRunNotFenced(tx, { tenantId: b.tenantId, runId: b.runId });
    const at = now().toISOString();
    const plan = planBatch({
      tenantId: b.tenantId,
      runId: b.runId,
      actor: b.actor,
      at,
      ops: b.ops.map(redactedOp),
      ...(await readState(tx, b.tenantId, b.ops)),
      auditHead: await selectAuditHead(tx, { tenantId: b.tenantId }),
      ...(auditKeyOf(db) ? { auditKey: auditKeyOf(db) } : {}),
    });
    await writePlan(tx, b.tenantId, at, plan);
    const result: BatchResult = {
      tenantId: b.tenantId,
      runId: b.runId,
      batchNo: b.batchNo,
      appliedAt: at,
      changes: plan.changes,
    };
    await insertAppliedBatch(tx, { result, opsHash });
    const written = new Map(plan.versions.map((v) => [versionKey(v.noteId, v.version), v.status] as const));
    return { result, written };
  });
}

/**
 * What an operation stores, redacted: every writer (a run, a rollback, an approval, an
 * erasure) passes an operator's or an engine's words here, and they land in the audit log.
 * Redaction is deterministic, so the batch's hash (taken before) still identifies a retry.
 */
function redactedOp(op: ParsedNoteOp): ParsedNoteOp {
  const reason = redactText(op.reason);
  if (op.op === 'create') return { ...op, reason, content: redactContent(op.content) };
  return { ...op, reason, ...(op.changes ? { changes: redactContent(op.changes) } : {}) };
}

async function readState(tx: Queryable, tenantId: string, ops: ParsedNoteOp[]) {
  const noteIds = [...new Set(ops.map((op) => op.noteId))];
  const current = new Map<string, NoteVersion>();
  for (const v of await selectCurrentVersionsForUpdate(tx, { tenantId, noteIds })) current.set(v.noteId, v);
  const targetKeys = ops.flatMap((op) =>
    op.op === 'newVersion' && op.action === 'rollback' && op.targetVersion !== undefined
      ? [{ noteId: op.noteId, version: op.targetVersion }]
      : [],
  );
  const targets = new Map<string, NoteVersion>();
  for (const v of await selectVersions(tx, { tenantId, keys: targetKeys }))
    targets.set(versionKey(v.noteId, v.version), v);
  return { current, targets };
}

async function writePlan(tx: Queryable, tenantId: string, at: string, plan: BatchPlan): Promise<void> {
  // Versions first: the pointer's foreign key needs the version it moves to.
  await insertVersions(tx, { tenantId, at, versions: plan.versions });
  const created = plan.pointers.filter((m) => m.startVersion === null);
  const moved = plan.pointers.filter((m) => m.startVersion !== null);
  if ((await insertPointers(tx, { tenantId, at, pointers: created })) !== created.length) {
    // Only reachable if a writer skipped lockTenantWrites: fail rather than fork a note.
    throw new Error(`tenant ${tenantId}: a note created by this batch appeared concurrently`);
  }
  if ((await movePointers(tx, { tenantId, at, pointers: moved })) !== moved.length) {
    throw new Error(`tenant ${tenantId}: a note pointer moved under the batch's lock; no changes were committed`);
  }
  await insertAuditEntries(tx, { tenantId, entries: plan.audit });
}
