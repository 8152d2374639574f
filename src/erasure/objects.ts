import { FailureType } from '../contracts/failure-types.ts';
import { applyNoteBatch, selectNotesCitingObject, withTenant, type NoteOp } from '../db/index.ts';
import { nowOf, PermanentFailure, SILENT, type Ports, type Progress } from '../ports.ts';
import { deleteObject, rewriteWithoutSubject, type RecordMove } from './archive.ts';
import { evidenceOp, shortHash } from './evidence-op.ts';
import { subjectWork, type SubjectInput } from './work.ts';

export interface ArchiveErasure {
  rewritten: number;
  deleted: number;
  recordsRemoved: number;
  notesRepointed: number;
}

/**
 * Rewrites each object without the subject's lines, points evidence of other notes at the
 * new object (same record, same content hash, new line), then deletes the old object.
 */
export async function eraseArchiveObjects(
  ports: Pick<Ports, 'db' | 'archive' | 'clock'>,
  input: SubjectInput & { objectKeys: string[] },
  progress: Progress = SILENT,
): Promise<ArchiveErasure> {
  const { actor } = subjectWork(ports.db, input);
  const result: ArchiveErasure = { rewritten: 0, deleted: 0, recordsRemoved: 0, notesRepointed: 0 };
  for (const objectKey of input.objectKeys) {
    progress.beat({ objectKey });
    const outcome = await rewriteWithoutSubject(ports.archive, objectKey, input.userId, nowOf(ports).toISOString());
    if (outcome.status === 'absent' || outcome.status === 'clean') continue;
    result.recordsRemoved += outcome.removed;
    if (outcome.status === 'rewritten') {
      const move = { tenantId: input.tenantId, actor, oldKey: objectKey, newKey: outcome.newObjectKey };
      result.notesRepointed += await repoint(ports, move, outcome.moves);
      result.rewritten += 1;
    } else result.deleted += 1;
    await deleteObject(ports.archive, objectKey);
  }
  return result;
}

interface ObjectMove {
  tenantId: string;
  actor: string;
  oldKey: string;
  newKey: string;
}

/** Points the evidence of notes citing the old object at the same records in the new one. */
async function repoint(ports: Pick<Ports, 'db' | 'clock'>, move: ObjectMove, moves: RecordMove[]): Promise<number> {
  const { tenantId, actor, oldKey, newKey } = move;
  const byId = new Map(moves.map((m) => [m.recordId, m]));
  const notes = await withTenant(ports.db, tenantId, (tx) => selectNotesCitingObject(tx, { objectKey: oldKey }));
  const ops: NoteOp[] = [];
  for (const note of notes) {
    const evidence = note.evidence.flatMap((ref) => {
      if (ref.objectKey !== oldKey) return [ref];
      const moved = byId.get(ref.recordId);
      return moved && moved.contentHash === ref.contentHash ? [{ ...ref, objectKey: newKey, line: moved.line }] : [];
    });
    if (evidence.length === 0) {
      throw new PermanentFailure(
        `note ${note.noteId} cites only erased records of ${oldKey}; erase notes before the archive`,
        FailureType.ErasureOrder,
      );
    }
    const why = 'erasure: cited archive object rewritten without an erased subject; same records, new location';
    ops.push(evidenceOp(note, evidence, why));
  }
  if (ops.length === 0) return 0;
  await applyNoteBatch(
    ports.db,
    { tenantId, runId: `${actor}/move/${shortHash(oldKey)}`, batchNo: 0, actor, ops },
    ports.clock,
    { lockHolder: actor },
  );
  return ops.length;
}
