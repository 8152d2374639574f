import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { ConsolidationActivities } from '../activities/index.ts';
import type { ArchiveErasure, ErasureScan, NotesErasure, ScrubResult } from '../activities/erasure.ts';
import { FailureType } from '../src/contracts/failure-types.ts';
import { EraseSubjectInput } from '../src/contracts/workflow-inputs.ts';
import { BOOKKEEPING, COMMIT, REPLAY } from './activity-options.ts';
import { parseWorkflowInput } from './workflow-input.ts';

/** Archive work reads whole objects and heartbeats per object (the REPLAY preset's limits). */
const archive = proxyActivities<ConsolidationActivities>(REPLAY);
const store = proxyActivities<ConsolidationActivities>(COMMIT);
const bookkeeping = proxyActivities<ConsolidationActivities>(BOOKKEEPING);

/** Objects rewritten per activity call: bounded work per attempt, bounded history per run. */
export const OBJECTS_PER_CALL = 25;

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
 * Erases one user's data from a tenant, startable from the UI with
 * `{ "tenantId": "acme", "userId": "u-alice" }`. Order matters: notes are decided while their
 * evidence still resolves; the archive is rewritten after, re-pointing the evidence of the
 * notes that stay; scrubbing follows; the scan must then find nothing, or the workflow fails
 * with ErasureIncomplete and keeps its working set for a re-run.
 */
export async function eraseSubjectWorkflow(raw: EraseSubjectInput): Promise<EraseSubjectResult> {
  const subject = parseWorkflowInput(EraseSubjectInput, raw);
  const found = await archive.prepareErasure(subject);
  const notes = await store.eraseSubjectNotes(subject);
  const totals: ArchiveErasure = { rewritten: 0, deleted: 0, recordsRemoved: 0, notesRepointed: 0 };
  for (let i = 0; i < found.objectKeys.length; i += OBJECTS_PER_CALL) {
    const r = await archive.eraseArchiveObjects({
      ...subject,
      objectKeys: found.objectKeys.slice(i, i + OBJECTS_PER_CALL),
    });
    totals.rewritten += r.rewritten;
    totals.deleted += r.deleted;
    totals.recordsRemoved += r.recordsRemoved;
    totals.notesRepointed += r.notesRepointed;
  }
  const scrubbed = await store.scrubSubjectData(subject);
  const scan = await archive.verifyErasure(subject);
  const report: EraseSubjectResult = {
    tenantId: subject.tenantId,
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
  await bookkeeping.finishErasure(subject);
  return report;
}
