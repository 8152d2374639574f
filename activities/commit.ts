import { ApplicationFailure } from '@temporalio/common';
import { applyNoteBatch, withTenant } from '../src/db/index.ts';
import { NoteOp, type ParsedNoteOp } from '../src/db/notes/ops.ts';
import { selectRunBatch, selectRunBatches, selectUnembedded, updateEmbedding } from '../src/db/run-work.ts';
import { classified, heartbeat, whileHeartbeating, type ActivityDeps } from './deps.ts';

/** Claims embedded per request to the embedding server. @default 64 */
export const EMBED_BATCH = 64;
/** Approval batches are numbered after every replay batch, so their idempotency keys never collide. */
export const APPROVAL_BATCH_OFFSET = 1_000_000;

export interface BatchKey {
  runId: string;
  tenantId: string;
  batchNo: number;
}

export function createCommitActivities(deps: ActivityDeps) {
  const storedOps = async (k: BatchKey): Promise<ParsedNoteOp[]> => {
    const stored = await withTenant(deps.db, k.tenantId, (tx) => selectRunBatch(tx, k));
    if (!stored)
      throw ApplicationFailure.nonRetryable(`run ${k.runId} has no replayed batch ${k.batchNo}`, 'RunNotFound');
    return stored.ops.map((o) => NoteOp.parse(o));
  };

  return {
    /**
     * Commits a replayed batch in one transaction, idempotent on (run, batch). A staged run
     * writes new notes as `staged` and holds changes to existing notes until approval.
     */
    commitBatch: classified(
      async (
        input: BatchKey & { actor: string; staged: boolean },
      ): Promise<{ committed: number; quarantined: number }> => {
        const ops = (await storedOps(input)).flatMap((op) => (input.staged ? stagedForm(op) : [op]));
        if (ops.length === 0) return { committed: 0, quarantined: 0 };
        const result = await applyNoteBatch(deps.db, {
          tenantId: input.tenantId,
          runId: input.runId,
          batchNo: input.batchNo,
          actor: input.actor,
          ops,
        });
        const quarantined = ops.filter((o) => o.op === 'create' && o.status === 'quarantined').length;
        return { committed: result.changes.length - quarantined, quarantined };
      },
    ),

    /** Embeds the claims of versions this run wrote that have no embedding yet. */
    reindexBatch: classified(async (input: BatchKey): Promise<{ embedded: number; embedder: string }> => {
      let embedded = 0;
      for (;;) {
        const pending = await withTenant(deps.db, input.tenantId, (tx) =>
          selectUnembedded(tx, { runId: input.runId, limit: EMBED_BATCH }),
        );
        if (pending.length === 0) break;
        const vectors = await whileHeartbeating(deps.embedder.embed(pending.map((p) => p.claim)), { embedded });
        await withTenant(deps.db, input.tenantId, async (tx) => {
          for (const [i, p] of pending.entries())
            await updateEmbedding(tx, { ...p, embedding: vectors[i] as number[] });
        });
        embedded += pending.length;
        heartbeat({ embedded });
      }
      return { embedded, embedder: deps.embedder.name };
    }),

    /** Approve: activate staged notes and apply held changes. Reject: retire staged notes, drop held changes. */
    resolveStaged: classified(
      async (input: {
        runId: string;
        tenantId: string;
        decision: 'approve' | 'reject';
        actor: string;
        reason: string;
      }) => {
        const batches = await withTenant(deps.db, input.tenantId, (tx) => selectRunBatches(tx, { runId: input.runId }));
        let changed = 0;
        for (const b of batches) {
          const ops = b.ops.map((o) => NoteOp.parse(o));
          const decided = decisionOps(ops, input.decision, input.reason);
          if (decided.length === 0) continue;
          const r = await applyNoteBatch(deps.db, {
            tenantId: input.tenantId,
            runId: input.runId,
            batchNo: APPROVAL_BATCH_OFFSET + b.batchNo,
            actor: input.actor,
            ops: decided,
          });
          changed += r.changes.length;
        }
        return { changed };
      },
    ),
  };
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
