import { deleteErasureWork, insertErasureWork, selectErasureWork, withTenant, type Db } from '../db/index.ts';
import { SILENT, type Ports, type Progress } from '../ports.ts';
import { findSubjectObjects } from './archive.ts';
import { subjectKey } from './subject.ts';

export interface SubjectInput {
  tenantId: string;
  userId: string;
}

/** One erasure's keys: no user id in keys, audit actors or the report. */
export interface SubjectWork {
  subject: string;
  actor: string;
  /** The record ids or the subject's words that prepareErasure kept in erasure_work. */
  read(kind: 'record' | 'needle'): Promise<string[]>;
}

export function subjectWork(db: Db, input: SubjectInput): SubjectWork {
  const subject = subjectKey(input.tenantId, input.userId);
  return {
    subject,
    actor: `erasure/${subject.slice(0, 16)}`,
    read: (kind) => withTenant(db, input.tenantId, (tx) => selectErasureWork(tx, { subject, kind })),
  };
}

/**
 * Finds the archive objects holding the subject's records and keeps their record ids and
 * the subject's words in erasure_work (the workflow passes only object keys).
 */
export async function prepareErasure(
  ports: Pick<Ports, 'db' | 'archive'>,
  input: SubjectInput,
  progress: Progress = SILENT,
): Promise<{ objectKeys: string[]; records: number; needles: number }> {
  const { subject } = subjectWork(ports.db, input);
  const found = await findSubjectObjects(ports.archive, input.tenantId, input.userId, () => progress.beat());
  const recordIds = found.flatMap((f) => f.recordIds);
  const needles = [input.userId, ...new Set(found.flatMap((f) => f.needles))];
  await withTenant(ports.db, input.tenantId, async (tx) => {
    await insertErasureWork(tx, { tenantId: input.tenantId, subject, kind: 'record', values: recordIds });
    await insertErasureWork(tx, { tenantId: input.tenantId, subject, kind: 'needle', values: needles });
  });
  return { objectKeys: found.map((f) => f.objectKey), records: recordIds.length, needles: needles.length };
}

/** Drops the working set (the last copy of the subject's words); only after a clean scan. */
export async function finishErasure(
  ports: Pick<Ports, 'db'>,
  input: SubjectInput,
): Promise<{ workRowsDeleted: number }> {
  const { subject } = subjectWork(ports.db, input);
  return {
    workRowsDeleted: await withTenant(ports.db, input.tenantId, (tx) => deleteErasureWork(tx, { subject })),
  };
}
