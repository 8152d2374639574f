import {
  redactAudit,
  scanDatabaseForSubject,
  scrubErasedNotes,
  deleteCachedVectors,
  insertErasureWork,
  selectClaimHashesToScrub,
  scrubRunWork,
  scrubSubjectRows,
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
  /** Distinct claims scrubbed (erased notes' and older versions'), whose cached vectors were deleted. */
  claimsScrubbed?: number;
  /** Run episodes whose session, task or records named the subject (deleted). */
  runEpisodesDeleted?: number;
  /** Usage rows whose task id contains the subject's strings (deleted). */
  usageRowsByTaskDeleted?: number;
  /** Feedback rows citing the subject's records or an erased note (deleted). */
  feedbackRowsDeleted?: number;
  /** Older versions of remaining notes that cited or quoted the subject (scrubbed). */
  olderVersionsScrubbed?: number;
}

export interface ErasureScan {
  clean: boolean;
  archiveObjectsScanned: number;
  archive: ArchiveFinding[];
  database: StoreFinding[];
}

/**
 * Scrubs what the verification scan checks: erased notes' versions, embeddings and usage rows,
 * older versions citing the subject, the cached vectors of every claim it scrubs, run work and
 * episodes, feedback, the record index, audit reasons.
 */
export async function scrubSubjectData(ports: Pick<Ports, 'db'>, input: SubjectInput): Promise<ScrubResult> {
  const { subject, read } = subjectWork(ports.db, input);
  const needles = await read('needle');
  const recordIds = await read('record');
  const { notes, runWork, rows, index, cachedClaims, claims } = await withTenant(
    ports.db,
    input.tenantId,
    async (tx) => {
      const noteIds = await selectErasedNoteIds(tx);
      // Kept so the scan can check the cache once the claims are gone (and a re-run still can).
      const claims = await selectClaimHashesToScrub(tx, { noteIds, needles, recordIds });
      await insertErasureWork(tx, { tenantId: input.tenantId, subject, kind: 'claim_hash', values: claims });
      const cachedClaims = await deleteCachedVectors(tx, { hashes: claims });
      const index = await deleteSubjectFromRecordIndex(tx, { recordIds, userId: input.userId, needles });
      // The cache keys of the subject's records, kept beside the claims' for the same check.
      await insertErasureWork(tx, { tenantId: input.tenantId, subject, kind: 'claim_hash', values: index.hashes });
      return {
        claims: claims.length,
        cachedClaims,
        notes: await scrubErasedNotes(tx, { noteIds }),
        runWork: await scrubRunWork(tx, { needles }),
        rows: await scrubSubjectRows(tx, { subject }),
        index,
      };
    },
  );
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
    claimsScrubbed: claims,
    runEpisodesDeleted: rows.episodes,
    usageRowsByTaskDeleted: rows.usageRows,
    feedbackRowsDeleted: rows.feedback,
    olderVersionsScrubbed: rows.versions,
  };
}

/** The proof: nothing of the subject in the archive or in any table of the note store. */
export async function verifyErasure(
  ports: Pick<Ports, 'db' | 'archive'>,
  input: SubjectInput,
  progress: Progress = SILENT,
): Promise<ErasureScan> {
  const work = subjectWork(ports.db, input);
  const needles = await work.read('needle');
  const recordIds = await work.read('record');
  const claimHashes = await work.read('claim_hash');
  const archive = await scanArchiveForSubject(ports.archive, input.tenantId, input.userId, needles, () =>
    progress.beat(),
  );
  const database = await withTenant(ports.db, input.tenantId, (tx) =>
    scanDatabaseForSubject(tx, { needles, recordIds, userId: input.userId, claimHashes }),
  );
  return {
    clean: archive.findings.length === 0 && database.length === 0,
    archiveObjectsScanned: archive.objects,
    archive: archive.findings,
    database,
  };
}
