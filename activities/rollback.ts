import { rollbackNote, type RollbackNoteInput } from '../src/rollback/note.ts';
import { classified, type ActivityDeps } from './deps.ts';

export type { RollbackNoteInput as RollbackNoteActivityInput, RollbackResult } from '../src/rollback/note.ts';

export function createRollbackActivities(deps: ActivityDeps) {
  return {
    /** Rolls one note back (to a version, or out of recall) with its cascade; a repeated rollback is a no-op. */
    rollbackNote: classified((input: RollbackNoteInput) => rollbackNote(deps, input)),
  };
}
