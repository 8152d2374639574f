import { ApplicationFailure } from '@temporalio/common';
import { createHash } from 'node:crypto';
import { validateProposal } from '../policies/validation.ts';
import type { Proposal } from '../src/contracts/episode.ts';
import type { EvidenceRef, NoteVersion } from '../src/contracts/note.ts';
import { applyNoteBatch, withTenant } from '../src/db/index.ts';
import {
  deleteErasureWork,
  insertErasureWork,
  redactAudit,
  scanDatabaseForSubject,
  scrubErasedNotes,
  scrubRunWork,
  selectErasedNoteIds,
  selectErasureOutcome,
  selectErasureWork,
  selectNotesCitingObject,
  selectNotesTouchingSubject,
  writeErasedVersions,
  type StoreFinding,
} from '../src/db/erasure-queries.ts';
import type { NoteOp } from '../src/db/notes/ops.ts';
import {
  deleteObject,
  findSubjectObjects,
  rewriteWithoutSubject,
  scanArchiveForSubject,
  type ArchiveFinding,
  type RecordMove,
} from '../src/erasure/archive.ts';
import { sha256, subjectKey } from '../src/erasure/subject.ts';
import { resolveEvidence } from '../src/episodes/episodes.ts';
import { classified, heartbeat, type ActivityDeps } from './deps.ts';

export interface SubjectInput {
  tenantId: string;
  userId: string;
}

export interface NotesErasure {
  /** Notes whose claim could not stand without the subject: now 'erased', every version scrubbed. */
  erased: string[];
  /** Notes that kept their claim on the remaining (other users') evidence, re-validated. */
  revalidated: string[];
}

export interface ArchiveErasure {
  rewritten: number;
  deleted: number;
  recordsRemoved: number;
  notesRepointed: number;
}

export interface ScrubResult {
  versionsScrubbed: number;
  embeddingsRemoved: number;
  usageRowsDeleted: number;
  runWorkRowsDeleted: number;
  auditEntriesRedacted: number;
  auditEntriesRelinked: number;
}

export interface ErasureScan {
  clean: boolean;
  archiveObjectsScanned: number;
  archive: ArchiveFinding[];
  database: StoreFinding[];
}

const shortHash = (value: unknown): string =>
  createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

/** Re-checks a note on the evidence that remains once the subject's records are gone. */
async function survives(
  deps: ActivityDeps,
  tenantId: string,
  note: NoteVersion,
  remaining: EvidenceRef[],
): Promise<boolean> {
  if (remaining.length === 0) return false;
  const resolved = await resolveEvidence(deps.archive, remaining, []);
  const content = {
    scope: note.scope,
    kind: note.kind,
    claim: note.claim,
    evidence: remaining,
    sourceKind: note.sourceKind,
    confidence: note.confidence,
    importance: note.importance,
    validFrom: note.validFrom,
    validUntil: note.validUntil,
    sourceCount: note.sourceCount,
    lastConfirmedAt: note.lastConfirmedAt,
    contradictedAt: note.contradictedAt,
  };
  return validateProposal({ content } as Proposal, tenantId, resolved).verdict === 'accept';
}

/** A new version with other evidence, keeping status and (for superseded notes) the successor. */
function evidenceOp(note: NoteVersion, evidence: EvidenceRef[], reason: string): NoteOp {
  const changes = {
    evidence,
    sourceCount: Math.max(1, Math.min(note.sourceCount, new Set(evidence.map((e) => e.recordId)).size)),
  };
  return note.status === 'superseded' && note.supersededBy
    ? {
        op: 'newVersion',
        action: 'supersede',
        noteId: note.noteId,
        expectedVersion: note.version,
        supersededBy: note.supersededBy,
        changes,
        reason,
      }
    : { op: 'newVersion', action: 'revise', noteId: note.noteId, expectedVersion: note.version, changes, reason };
}

export function createErasureActivities(deps: ActivityDeps) {
  const now = () => (deps.clock ?? (() => new Date()))();
  const work = (input: SubjectInput) => {
    const subject = subjectKey(input.tenantId, input.userId);
    return {
      subject,
      actor: `erasure/${subject.slice(0, 16)}`,
      read: (kind: 'record' | 'needle') =>
        withTenant(deps.db, input.tenantId, (tx) => selectErasureWork(tx, { subject, kind })),
    };
  };

  return {
    /**
     * Finds the archive objects holding the subject's records and keeps their record ids and
     * the subject's words in erasure_work (the workflow passes only object keys).
     */
    prepareErasure: classified(
      async (input: SubjectInput): Promise<{ objectKeys: string[]; records: number; needles: number }> => {
        const { subject } = work(input);
        const found = await findSubjectObjects(deps.archive, input.tenantId, input.userId, () => heartbeat());
        const recordIds = found.flatMap((f) => f.recordIds);
        const needles = [input.userId, ...new Set(found.flatMap((f) => f.needles))];
        await withTenant(deps.db, input.tenantId, async (tx) => {
          await insertErasureWork(tx, { tenantId: input.tenantId, subject, kind: 'record', values: recordIds });
          await insertErasureWork(tx, { tenantId: input.tenantId, subject, kind: 'needle', values: needles });
        });
        return { objectKeys: found.map((f) => f.objectKey), records: recordIds.length, needles: needles.length };
      },
    ),

    /**
     * Notes citing the subject's records, scoped to them or quoting them: a note keeps its claim
     * only if the remaining evidence passes validation on its own; otherwise it is erased.
     */
    eraseSubjectNotes: classified(async (input: SubjectInput): Promise<NotesErasure> => {
      const { subject, actor, read } = work(input);
      const records = new Set(await read('record'));
      const needles = await read('needle');
      const notes = await withTenant(deps.db, input.tenantId, (tx) =>
        selectNotesTouchingSubject(tx, { recordIds: [...records], userId: input.userId, needles }),
      );
      const erase: string[] = [];
      const ops: NoteOp[] = [];
      for (const note of notes) {
        heartbeat({ noteId: note.noteId });
        const remaining = note.evidence.filter((e) => !records.has(e.recordId));
        const aboutSubject =
          (note.scope.level === 'user' && note.scope.key === input.userId) ||
          needles.some((n) => note.claim.includes(n));
        if (!aboutSubject && (await survives(deps, input.tenantId, note, remaining))) {
          ops.push(
            evidenceOp(
              note,
              remaining,
              'erasure: evidence from erased records removed; re-validated on the remaining evidence',
            ),
          );
        } else erase.push(note.noteId);
      }
      await writeErasedVersions(deps.db, {
        tenantId: input.tenantId,
        noteIds: erase,
        actor,
        reason: `erasure of a data subject (${subject.slice(0, 16)})`,
        at: now().toISOString(),
      });
      if (ops.length > 0) {
        await applyNoteBatch(
          deps.db,
          { tenantId: input.tenantId, runId: `${actor}/revalidate/${shortHash(ops)}`, batchNo: 0, actor, ops },
          deps.clock,
        );
      }
      // Read back rather than counted here, so a retried attempt still reports what the first did.
      return withTenant(deps.db, input.tenantId, (tx) => selectErasureOutcome(tx, { actor }));
    }),

    /**
     * Rewrites each object without the subject's lines, points evidence of other notes at the
     * new object (same record, same content hash, new line), then deletes the old object.
     */
    eraseArchiveObjects: classified(async (input: SubjectInput & { objectKeys: string[] }): Promise<ArchiveErasure> => {
      const { actor } = work(input);
      const result: ArchiveErasure = { rewritten: 0, deleted: 0, recordsRemoved: 0, notesRepointed: 0 };
      for (const objectKey of input.objectKeys) {
        heartbeat({ objectKey });
        const outcome = await rewriteWithoutSubject(deps.archive, objectKey, input.userId, now().toISOString());
        if (outcome.status === 'absent' || outcome.status === 'clean') continue;
        result.recordsRemoved += outcome.removed;
        if (outcome.status === 'rewritten') {
          result.notesRepointed += await repoint(
            deps,
            input.tenantId,
            actor,
            objectKey,
            outcome.newObjectKey,
            outcome.moves,
          );
          result.rewritten += 1;
        } else result.deleted += 1;
        await deleteObject(deps.archive, objectKey);
      }
      return result;
    }),

    /** Scrubs erased notes' versions, embeddings and usage rows, run work and audit reasons. */
    scrubSubjectData: classified(async (input: SubjectInput): Promise<ScrubResult> => {
      const { subject, read } = work(input);
      const needles = await read('needle');
      const { notes, runWork } = await withTenant(deps.db, input.tenantId, async (tx) => {
        const noteIds = await selectErasedNoteIds(tx);
        return { notes: await scrubErasedNotes(tx, { noteIds }), runWork: await scrubRunWork(tx, { needles }) };
      });
      const audit = await redactAudit(deps.db, { tenantId: input.tenantId, subject, needles, digest: sha256 });
      return {
        versionsScrubbed: notes.versions,
        embeddingsRemoved: notes.embeddings,
        usageRowsDeleted: notes.usageRows,
        runWorkRowsDeleted: runWork,
        auditEntriesRedacted: audit.redacted,
        auditEntriesRelinked: audit.relinked,
      };
    }),

    /** The proof: nothing of the subject in the archive or in any table of the note store. */
    verifyErasure: classified(async (input: SubjectInput): Promise<ErasureScan> => {
      const needles = await work(input).read('needle');
      const archive = await scanArchiveForSubject(deps.archive, input.tenantId, input.userId, needles, () =>
        heartbeat(),
      );
      const database = await withTenant(deps.db, input.tenantId, (tx) => scanDatabaseForSubject(tx, { needles }));
      return {
        clean: archive.findings.length === 0 && database.length === 0,
        archiveObjectsScanned: archive.objects,
        archive: archive.findings,
        database,
      };
    }),

    /** Drops the working set (the last copy of the subject's words); only after a clean scan. */
    finishErasure: classified(async (input: SubjectInput): Promise<{ workRowsDeleted: number }> => {
      const { subject } = work(input);
      return { workRowsDeleted: await withTenant(deps.db, input.tenantId, (tx) => deleteErasureWork(tx, { subject })) };
    }),
  };
}

async function repoint(
  deps: ActivityDeps,
  tenantId: string,
  actor: string,
  oldKey: string,
  newKey: string,
  moves: RecordMove[],
): Promise<number> {
  const byId = new Map(moves.map((m) => [m.recordId, m]));
  const notes = await withTenant(deps.db, tenantId, (tx) => selectNotesCitingObject(tx, { objectKey: oldKey }));
  const ops: NoteOp[] = [];
  for (const note of notes) {
    const evidence = note.evidence.flatMap((ref) => {
      if (ref.objectKey !== oldKey) return [ref];
      const moved = byId.get(ref.recordId);
      return moved && moved.contentHash === ref.contentHash ? [{ ...ref, objectKey: newKey, line: moved.line }] : [];
    });
    if (evidence.length === 0) {
      throw ApplicationFailure.nonRetryable(
        `note ${note.noteId} cites only erased records of ${oldKey}; erase notes before the archive`,
        'ErasureOrder',
      );
    }
    ops.push(
      evidenceOp(
        note,
        evidence,
        'erasure: cited archive object rewritten without an erased subject; same records, new location',
      ),
    );
  }
  if (ops.length === 0) return 0;
  await applyNoteBatch(
    deps.db,
    { tenantId, runId: `${actor}/move/${shortHash(oldKey)}`, batchNo: 0, actor, ops },
    deps.clock,
  );
  return ops.length;
}
