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
import { classified, heartbeats, type ActivityDeps } from './deps.ts';

export type { NotesErasure } from '../src/erasure/notes.ts';
export type { ArchiveErasure } from '../src/erasure/objects.ts';
export type { ErasureScan, ScrubResult } from '../src/erasure/scrub.ts';
export type { ErasureRef, SubjectInput } from '../src/erasure/work.ts';

/**
 * The steps of erasing a data subject, in the order the erase-subject workflow runs them. Each
 * takes a request handle (the user id is read from the note store, never carried by Temporal)
 * and renews the tenant's lease before it works, so consolidation, approval, rollback and
 * reindex writes of the tenant wait for the erasure to end (they fail with TenantLocked).
 */
export function createErasureActivities(deps: ActivityDeps) {
  const locked =
    <I extends ErasureRef, R>(fn: (subject: SubjectInput, input: I) => Promise<R>) =>
    async (input: I): Promise<R> => {
      const subject = await resolveSubject(deps.db, input);
      await holdTenantLease(deps.db, subject);
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
      // Its erase entries are anchored in the archive, as every run's are (idempotent).
      await publishAuditHead(deps, input.tenantId);
      return finished;
    }),
    releaseErasureLease: classified(async (input: ErasureRef) => {
      const subject = await resolvedOrGone(input);
      return subject ? releaseErasureLease(deps, subject) : { released: false };
    }),
  };
}
