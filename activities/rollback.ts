import { publishAuditHead } from '../src/audit/anchor.ts';
import { rollbackNote, type RollbackNoteInput } from '../src/rollback/note.ts';
import { classified, type ActivityDeps } from './deps.ts';

export type { RollbackNoteInput as RollbackNoteActivityInput, RollbackResult } from '../src/rollback/note.ts';

export function createRollbackActivities(deps: ActivityDeps) {
  return {
    /**
     * Rolls one note back (to a version, or out of recall) with its cascade; a repeated rollback
     * is a no-op. Then publishes the tenant's audit chain head, as every run does.
     */
    rollbackNote: classified(async (input: RollbackNoteInput) => {
      const result = await rollbackNote(deps, input);
      await publishAuditHead(deps, input.tenantId);
      return result;
    }),
  };
}
