import { ulid } from 'ulid';
import { readObject } from '../archive/reader.ts';
import type { ArchiveStore } from '../archive/store.ts';
import { writeBatch } from '../archive/writer.ts';
import type { RawRecordInput } from '../contracts/raw-record.ts';
import { insertFeedback, selectCurrentVersion, withTenant, type Db, type FeedbackRow } from '../db/index.ts';

/** Archive producer of the records the API writes on an agent's behalf. */
export const API_PRODUCER = 'api';

export interface FeedbackInput {
  tenantId: string;
  noteId: string;
  verdict: 'helped' | 'wrong';
  version?: number | undefined;
  taskId?: string | undefined;
  sessionId?: string | undefined;
  agentId?: string | undefined;
  userId?: string | undefined;
  comment?: string | undefined;
}

export type RecordedFeedback = FeedbackRow & { recordId: string; objectKey: string };

/** The note does not exist for this tenant (or was erased), or has no such version. */
export class FeedbackTargetError extends Error {
  override name = 'FeedbackTargetError';
  constructor(
    readonly kind: 'no_note' | 'no_version',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Records that a recalled note helped or was wrong: a `feedback` record in the archive (what the
 * agent said, about which task, by whom: erasure finds it there) and a row in the note store
 * pointing at it, which the next consolidation run reads (`src/consolidation/feedback.ts`).
 */
export async function recordFeedback(
  deps: { db: Db; archive: ArchiveStore; clock?: () => Date },
  input: FeedbackInput,
): Promise<RecordedFeedback> {
  const current = await withTenant(deps.db, input.tenantId, (tx) =>
    selectCurrentVersion(tx, { tenantId: input.tenantId, noteId: input.noteId }),
  );
  if (!current || current.status === 'erased')
    throw new FeedbackTargetError('no_note', `noteId: no note ${input.noteId} in tenant ${input.tenantId}`);
  const version = input.version ?? current.version;
  if (version > current.version)
    throw new FeedbackTargetError('no_version', `version: note ${input.noteId} has no version ${version}`);
  const now = (deps.clock ?? (() => new Date()))();
  const record = feedbackRecord(input, version, now);
  const written = await writeBatch(deps.archive, {
    tenantId: input.tenantId,
    producer: API_PRODUCER,
    records: [record],
    now,
  });
  const objectKey = written.objects[0]?.objectKey;
  if (!objectKey) throw new Error(`feedback record was not archived: ${written.rejected[0]?.reason ?? 'unknown'}`);
  const evidence = await evidenceOf(deps.archive, objectKey, record.id);
  const row: FeedbackRow = {
    feedbackId: ulid(now.getTime()),
    noteId: input.noteId,
    version,
    verdict: input.verdict,
    evidence,
    at: now.toISOString(),
  };
  await insertFeedback(deps.db, { tenantId: input.tenantId, row });
  return { ...row, recordId: record.id, objectKey };
}

/** No `outcome`: the verdict is about the note, not the task, and must not read as the task failing. */
function feedbackRecord(input: FeedbackInput, version: number, now: Date): RawRecordInput & { id: string } {
  return {
    id: ulid(now.getTime()),
    tenantId: input.tenantId,
    agentId: input.agentId ?? 'api',
    sessionId: input.sessionId ?? `feedback-${input.taskId ?? input.noteId}`,
    ...(input.userId ? { userId: input.userId } : {}),
    ...(input.taskId ? { taskId: input.taskId } : {}),
    kind: 'feedback',
    source: 'agent',
    observedAt: now.toISOString(),
    text: `note ${input.noteId} (version ${version}) ${input.verdict}${input.comment ? `: ${input.comment}` : ''}`,
    payload: { noteId: input.noteId, version, verdict: input.verdict },
    tags: [`feedback:${input.verdict}`],
  };
}

async function evidenceOf(
  archive: ArchiveStore,
  objectKey: string,
  recordId: string,
): Promise<FeedbackRow['evidence']> {
  for await (const r of readObject(archive, objectKey)) {
    if (r.record.id === recordId) return { recordId, objectKey, line: r.line, contentHash: r.contentHash };
  }
  throw new Error(`feedback record ${recordId} is not in ${objectKey}`);
}
