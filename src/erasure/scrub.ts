import {
  redactAudit,
  scanDatabaseForSubject,
  scrubErasedNotes,
  deleteCachedClaimVectors,
  scrubRunWork,
  deleteSubjectFromRecordIndex,
  selectErasedNoteIds,
  withTenant,
  type StoreFinding,
} from '../db/index.ts';
import { SILENT, type Ports, type Progress } from '../ports.ts';
import { scanArchiveForSubject, type ArchiveFinding } from './archive.ts';
import { subjectWork, type SubjectInput } from './work.ts';

export interface ScrubResult {
  versionsScrubbed: number;
  embeddingsRemoved: number;
  usageRowsDeleted: number;
  runWorkRowsDeleted: number;
  auditEntriesRedacted: number;
  auditEntriesRelinked: number;
  /** Raw-record index rows of the objects that held the subject's records (reindexed from the rewritten objects). */
  recordIndexRowsDeleted: number;
  embeddingCacheRowsDeleted: number;
}

export interface ErasureScan {
  clean: boolean;
  archiveObjectsScanned: number;
  archive: ArchiveFinding[];
  database: StoreFinding[];
}

/** Scrubs erased notes' versions, embeddings and usage rows, run work, the record index and audit reasons. */
export async function scrubSubjectData(ports: Pick<Ports, 'db'>, input: SubjectInput): Promise<ScrubResult> {
  const { subject, read } = subjectWork(ports.db, input);
  const needles = await read('needle');
  const recordIds = await read('record');
  const { notes, runWork, index, cachedClaims } = await withTenant(ports.db, input.tenantId, async (tx) => {
    const noteIds = await selectErasedNoteIds(tx);
    const cachedClaims = await deleteCachedClaimVectors(tx, { noteIds });
    return {
      cachedClaims,
      notes: await scrubErasedNotes(tx, { noteIds }),
      runWork: await scrubRunWork(tx, { needles }),
      index: await deleteSubjectFromRecordIndex(tx, { recordIds, userId: input.userId, needles }),
    };
  });
  const audit = await redactAudit(ports.db, { tenantId: input.tenantId, subject, needles });
  return {
    versionsScrubbed: notes.versions,
    embeddingsRemoved: notes.embeddings,
    usageRowsDeleted: notes.usageRows,
    runWorkRowsDeleted: runWork,
    auditEntriesRedacted: audit.redacted,
    auditEntriesRelinked: audit.relinked,
    recordIndexRowsDeleted: index.records,
    embeddingCacheRowsDeleted: index.cached + cachedClaims,
  };
}

/** The proof: nothing of the subject in the archive or in any table of the note store. */
export async function verifyErasure(
  ports: Pick<Ports, 'db' | 'archive'>,
  input: SubjectInput,
  progress: Progress = SILENT,
): Promise<ErasureScan> {
  const needles = await subjectWork(ports.db, input).read('needle');
  const archive = await scanArchiveForSubject(ports.archive, input.tenantId, input.userId, needles, () =>
    progress.beat(),
  );
  const database = await withTenant(ports.db, input.tenantId, (tx) =>
    scanDatabaseForSubject(tx, { needles, userId: input.userId }),
  );
  return {
    clean: archive.findings.length === 0 && database.length === 0,
    archiveObjectsScanned: archive.objects,
    archive: archive.findings,
    database,
  };
}
