import {
  deleteErasureRequest,
  deleteErasureWork,
  insertErasureWork,
  releaseTenantLease,
  selectErasureRequest,
  selectErasureWork,
  takeTenantLease,
  withTenant,
  type Db,
} from '../db/index.ts';
import { FailureType } from '../contracts/failure-types.ts';
import { PermanentFailure, SILENT, type Ports, type Progress } from '../ports.ts';
import { findSubjectObjects } from './archive.ts';
import { subjectKey } from './subject.ts';

export interface SubjectInput {
  tenantId: string;
  userId: string;
}

/**
 * What the erasure's activities receive: a request handle (the user id is read from
 * erasure_requests), or a user id from histories recorded before handles.
 */
export type ErasureRef = { tenantId: string; handle: string } | SubjectInput;

/** The subject a reference names; a handle whose request is gone (done or expired) is a permanent fault. */
export async function resolveSubject(db: Db, ref: ErasureRef): Promise<SubjectInput> {
  if ('userId' in ref) return { tenantId: ref.tenantId, userId: ref.userId };
  const userId = await withTenant(db, ref.tenantId, (tx) => selectErasureRequest(tx, ref));
  if (userId === undefined) {
    throw new PermanentFailure(
      `erasure request ${ref.handle} of tenant ${ref.tenantId} does not exist (finished, or older than its retention): request the erasure again`,
      FailureType.ErasureRequestNotFound,
    );
  }
  return { tenantId: ref.tenantId, userId };
}

/** One erasure's keys: no user id in keys, audit actors or the report. */
export interface SubjectWork {
  subject: string;
  /** The audit actor of the erasure's writes, and the holder of the tenant's lease. */
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

/** Takes or renews the tenant's lease for this erasure; every erasure activity starts with it. */
export async function holdTenantLease(db: Db, input: SubjectInput): Promise<void> {
  const holder = subjectWork(db, input).actor;
  await withTenant(db, input.tenantId, (tx) =>
    takeTenantLease(tx, { tenantId: input.tenantId, holder, purpose: 'erasure' }),
  );
}

/** Frees the tenant's lease (after success, or when the erasure fails). */
export async function releaseErasureLease(
  ports: Pick<Ports, 'db'>,
  input: SubjectInput,
): Promise<{ released: boolean }> {
  const holder = subjectWork(ports.db, input).actor;
  return {
    released: await withTenant(ports.db, input.tenantId, (tx) =>
      releaseTenantLease(tx, { tenantId: input.tenantId, holder }),
    ),
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

/**
 * Drops the working set (the last copy of the subject's words) and the request (the user id),
 * and frees the tenant, in one transaction; only after a clean scan.
 */
export async function finishErasure(
  ports: Pick<Ports, 'db'>,
  input: SubjectInput,
  handle?: string,
): Promise<{ workRowsDeleted: number }> {
  const { subject, actor } = subjectWork(ports.db, input);
  const workRowsDeleted = await withTenant(ports.db, input.tenantId, async (tx) => {
    const n = await deleteErasureWork(tx, { subject });
    if (handle) await deleteErasureRequest(tx, { handle });
    await releaseTenantLease(tx, { tenantId: input.tenantId, holder: actor });
    return n;
  });
  return { workRowsDeleted };
}
