import { ApplicationFailure, CancellationScope, patched, proxyActivities } from '@temporalio/workflow';
import type { ConsolidationActivities } from '../activities/index.ts';
import type { ArchiveErasure, ErasureRef, ErasureScan, NotesErasure, ScrubResult } from '../activities/erasure.ts';
import { FailureType } from '../src/contracts/failure-types.ts';
import { EraseWorkflowInput } from '../src/contracts/workflow-inputs.ts';
import { BOOKKEEPING, COMMIT, REPLAY } from './activity-options.ts';
import { OPERATION_LEASE_PATCH } from './operation-lease.ts';
import { invalidWorkflowInput, parseWorkflowInput } from './workflow-input.ts';

/** Archive work reads whole objects and heartbeats per object (the REPLAY preset's limits). */
const archive = proxyActivities<ConsolidationActivities>(REPLAY);
const store = proxyActivities<ConsolidationActivities>(COMMIT);
const bookkeeping = proxyActivities<ConsolidationActivities>(BOOKKEEPING);

/** Objects rewritten per activity call: bounded work per attempt, bounded history per run. */
export const OBJECTS_PER_CALL = 25;

/**
 * Marks executions that take a request handle only and free the tenant's lease when they fail.
 * Histories recorded before it replay the earlier command sequence.
 */
export const ERASURE_BY_HANDLE_PATCH = 'erasure-by-handle-with-lease';

export interface EraseSubjectResult {
  tenantId: string;
  /** The subject's records found in the archive when the erasure started. */
  recordsFound: number;
  archive: ArchiveErasure & { objectsWithSubject: number };
  notes: NotesErasure;
  scrubbed: ScrubResult;
  scan: ErasureScan;
}

/**
 * Erases one user's data from a tenant. Its input is `{ tenantId, handle }`: `nocturne erase`
 * stores the user id in the note store under a random handle, so no history names the subject.
 * Order matters: notes are decided while their evidence still resolves; the archive is rewritten
 * after, re-pointing the evidence of the notes that stay; scrubbing follows; the scan must then
 * find nothing, or the workflow fails with ErasureIncomplete and keeps its working set (for the
 * retention period) for a re-run. Every step holds the tenant's lease; a failure frees it.
 */
export async function eraseSubjectWorkflow(raw: EraseWorkflowInput): Promise<EraseSubjectResult> {
  const input = parseWorkflowInput(EraseWorkflowInput, raw);
  if (!patched(ERASURE_BY_HANDLE_PATCH)) return eraseSteps(input as ErasureRef);
  if (input.handle === undefined) {
    throw invalidWorkflowInput('handle: pass { tenantId, handle } from `nocturne erase`, never a user id');
  }
  const ref = { tenantId: input.tenantId, handle: input.handle };
  try {
    return await eraseSteps(ref);
  } catch (error) {
    // Frees the operation lease and the write fence; since the lease, also once cancelled, and a
    // failure to free them (they then expire) no longer hides why the erasure failed.
    if (patched(OPERATION_LEASE_PATCH))
      await CancellationScope.nonCancellable(() => bookkeeping.releaseErasureLease(ref)).catch(() => undefined);
    else await bookkeeping.releaseErasureLease(ref);
    throw error;
  }
}

async function eraseSteps(ref: ErasureRef): Promise<EraseSubjectResult> {
  const found = await archive.prepareErasure(ref);
  const notes = await store.eraseSubjectNotes(ref);
  const totals: ArchiveErasure = { rewritten: 0, deleted: 0, recordsRemoved: 0, notesRepointed: 0 };
  for (let i = 0; i < found.objectKeys.length; i += OBJECTS_PER_CALL) {
    const r = await archive.eraseArchiveObjects({
      ...ref,
      objectKeys: found.objectKeys.slice(i, i + OBJECTS_PER_CALL),
    });
    totals.rewritten += r.rewritten;
    totals.deleted += r.deleted;
    totals.recordsRemoved += r.recordsRemoved;
    totals.notesRepointed += r.notesRepointed;
  }
  const scrubbed = await store.scrubSubjectData(ref);
  const scan = await archive.verifyErasure(ref);
  const report: EraseSubjectResult = {
    tenantId: ref.tenantId,
    recordsFound: found.records,
    archive: { ...totals, objectsWithSubject: found.objectKeys.length },
    notes,
    scrubbed,
    scan,
  };
  if (!scan.clean) {
    const where = [
      ...scan.archive.map((f) => `${f.objectKey} (${f.what})`),
      ...scan.database.map((f) => `${f.store} (${f.count} rows)`),
    ];
    throw ApplicationFailure.create({
      message: `erasure incomplete: the scan still finds the subject in ${where.join(', ')}`,
      type: FailureType.ErasureIncomplete,
      nonRetryable: true,
      details: [report],
    });
  }
  await bookkeeping.finishErasure(ref);
  return report;
}
