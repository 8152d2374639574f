import { eraseSubjectNotes } from '../src/erasure/notes.ts';
import { eraseArchiveObjects } from '../src/erasure/objects.ts';
import { scrubSubjectData, verifyErasure } from '../src/erasure/scrub.ts';
import { finishErasure, prepareErasure, type SubjectInput } from '../src/erasure/work.ts';
import { classified, heartbeats, type ActivityDeps } from './deps.ts';

export type { NotesErasure } from '../src/erasure/notes.ts';
export type { ArchiveErasure } from '../src/erasure/objects.ts';
export type { ErasureScan, ScrubResult } from '../src/erasure/scrub.ts';
export type { SubjectInput } from '../src/erasure/work.ts';

/** The steps of erasing a data subject, in the order the erase-subject workflow runs them. */
export function createErasureActivities(deps: ActivityDeps) {
  return {
    prepareErasure: classified((input: SubjectInput) => prepareErasure(deps, input, heartbeats)),
    eraseSubjectNotes: classified((input: SubjectInput) => eraseSubjectNotes(deps, input, heartbeats)),
    eraseArchiveObjects: classified((input: SubjectInput & { objectKeys: string[] }) =>
      eraseArchiveObjects(deps, input, heartbeats),
    ),
    scrubSubjectData: classified((input: SubjectInput) => scrubSubjectData(deps, input)),
    verifyErasure: classified((input: SubjectInput) => verifyErasure(deps, input, heartbeats)),
    finishErasure: classified((input: SubjectInput) => finishErasure(deps, input)),
  };
}
