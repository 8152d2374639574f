import { ApplicationFailure } from '@temporalio/common';
import { eraseSubjectNotes } from '../src/erasure/notes.ts';
import { eraseArchiveObjects } from '../src/erasure/objects.ts';
import { scrubSubjectData, verifyErasure } from '../src/erasure/scrub.ts';
import {
  finishErasure,
  holdTenantLease,
  prepareErasure,
  releaseErasureLease,
  resolveSubject,
  type ErasureRef,
  type SubjectInput,
} from '../src/erasure/work.ts';
import { publishAuditHead } from '../src/audit/anchor.ts';
import { FailureType } from '../src/contracts/failure-types.ts';
import { PermanentFailure } from '../src/ports.ts';
import { coexistence } from '../policies/tenant-operations.ts';
import { TenantBusyError } from '../src/db/index.ts';
import { classified, heartbeats, type ActivityDeps } from './deps.ts';
import { freeLease, holdLease } from './tenant-operation.ts';

export type { NotesErasure } from '../src/erasure/notes.ts';
export type { ArchiveErasure } from '../src/erasure/objects.ts';
export type { ErasureScan, ScrubResult } from '../src/erasure/scrub.ts';
export type { ErasureRef, SubjectInput } from '../src/erasure/work.ts';

/**
 * Another erasure of the tenant (another request, perhaps of the same subject) holds the lease:
 * this one waits for it through the activity's retries instead of failing at once, and fails
 * with TenantLocked once they are spent. Other writers still fail at once (asActivityFailure).
 */
function waitForOtherErasure(error: unknown): never {
  const held = error instanceof TenantBusyError ? error.heldBy.kind : undefined;
  const waits = held === 'erasure' && coexistence(held, 'erasure') === 'waits';
  if (waits || (error as Error | undefined)?.name === 'TenantLockedError') {
    throw ApplicationFailure.retryable(
      `${(error as Error).message} (another erasure; retrying)`,
      FailureType.TenantLocked,
    );
  }
  throw error;
}

/**
 * The steps of erasing a data subject, in the order the erase-subject workflow runs them. Each
 * takes a request handle (the user id is read from the note store, never carried by Temporal)
 * and, before it works, renews the tenant's operation lease (no consolidation, run rollback or
 * reindex starts or goes on beside it: TenantBusy; and the erasure refuses to start beside one)
 * and then its write fence (note rollbacks and staged approvals fail with TenantLocked). The
 * operation lease comes first: an erasure refused by it has not moved the erasure epoch, so the
 * run holding the lease goes on unfenced.
 */
export function createErasureActivities(deps: ActivityDeps) {
  const locked =
    <I extends ErasureRef, R>(fn: (subject: SubjectInput, input: I) => Promise<R>) =>
    async (input: I): Promise<R> => {
      const subject = await resolveSubject(deps.db, input);
      await holdLease(deps, 'erasure', input.tenantId).catch(waitForOtherErasure);
      await holdTenantLease(deps.db, subject).catch(waitForOtherErasure);
      return fn(subject, input);
    };
  const resolvedOrGone = (input: ErasureRef) =>
    resolveSubject(deps.db, input).catch((e: unknown) => {
      if (e instanceof PermanentFailure && e.type === FailureType.ErasureRequestNotFound) return undefined;
      throw e;
    });
  return {
    prepareErasure: classified(locked((s) => prepareErasure(deps, s, heartbeats))),
    eraseSubjectNotes: classified(locked((s) => eraseSubjectNotes(deps, s, heartbeats))),
    eraseArchiveObjects: classified(
      locked((s, input: ErasureRef & { objectKeys: string[] }) =>
        eraseArchiveObjects(deps, { ...s, objectKeys: input.objectKeys }, heartbeats),
      ),
    ),
    scrubSubjectData: classified(locked((s) => scrubSubjectData(deps, s))),
    verifyErasure: classified(locked((s) => verifyErasure(deps, s, heartbeats))),
    finishErasure: classified(async (input: ErasureRef) => {
      // A retry after the request was deleted: the erasure is done.
      const subject = await resolvedOrGone(input);
      const finished = subject
        ? await finishErasure(deps, subject, 'handle' in input ? input.handle : undefined)
        : { workRowsDeleted: 0 };
      await freeLease(deps, input.tenantId);
      // Its erase entries are anchored in the archive, as every run's are (idempotent).
      await publishAuditHead(deps, input.tenantId);
      return finished;
    }),
    releaseErasureLease: classified(async (input: ErasureRef) => {
      const subject = await resolvedOrGone(input);
      const fence = subject ? await releaseErasureLease(deps, subject) : { released: false };
      return { released: (await freeLease(deps, input.tenantId)) || fence.released };
    }),
  };
}
