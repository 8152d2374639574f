import {
  RECORD_VECTOR_FORM,
  recallableText,
  speakerOf,
  takesTurnBefore,
  toldText,
  withTurnBefore,
  type TurnBefore,
} from '../../policies/record-recall.ts';
import { redact } from '../../policies/redaction.ts';
import { ObjectReader, type ArchivedRecord } from '../archive/index.ts';
import {
  deleteOlderForms,
  deleteRecordIndex,
  insertIndexedObject,
  insertIndexedRecords,
  lockIfNoErasureSince,
  selectErasureEpoch,
  selectIndexedObjects,
  selectIndexedForms,
  withTenant,
  type IndexedRecord,
  type Queryable,
} from '../db/index.ts';
import { createCachedEmbedder, inLane, textHash } from '../embeddings/cached.ts';
import type { Embedder } from '../embeddings/embedder.ts';
import { SILENT, type Ports, type Progress } from '../ports.ts';
import { tenantEmbeddingCache } from './embedding-cache.ts';
import { inWindow, objectsInWindow, type Window } from './objects.ts';
import { TurnsBefore } from './turns-before.ts';

/** Records embedded per request and inserted per transaction. @default 64 */
export const INDEX_CHUNK = 64;

export interface IndexRecordsInput {
  tenantId: string;
  window?: Window | undefined;
  /** Continue after this object key (the cursor a previous call returned). */
  after?: string | null | undefined;
  /** Objects read by this call at most; the rest is left for the next call. @default unlimited */
  maxObjects?: number | undefined;
}

export interface IndexRecordsResult {
  /** Objects read by this call. */
  objects: number;
  /** Records newly indexed, or indexed again in place of a row of an older vector form. */
  records: number;
  /** Of `records`, those that replaced a row of an older vector form (RECORD_VECTOR_FORM). */
  replaced: number;
  /** Texts the embedder was asked for (the others came from the cache). */
  embedded: number;
  /** The cursor for the next call; null when every object of the window was read. */
  after: string | null;
}

type IndexPorts = Pick<Ports, 'db' | 'archive' | 'embedder'>;

/**
 * Indexes a tenant's raw records of a window: manifests choose the objects, each object not
 * indexed yet is read, its records with text worth recalling are redacted, embedded (through
 * the embedding cache) and inserted. Idempotent: a retry or an overlapping window skips what
 * is indexed, and an object read to its end is not read again, unless it was indexed in an
 * older vector form: then it is read again and each of its rows replaced by one of the current form.
 */
export async function indexRecords(
  ports: IndexPorts,
  input: IndexRecordsInput,
  progress: Progress = SILENT,
): Promise<IndexRecordsResult> {
  const { tenantId } = input;
  const window = input.window ?? {};
  const { counter, embedder } = indexingEmbedder(ports, tenantId);
  const skip = (keys: string[]) =>
    withTenant(ports.db, tenantId, (tx) => selectIndexedObjects(tx, { objectKeys: keys, form: RECORD_VECTOR_FORM }));
  const result: IndexRecordsResult = { objects: 0, records: 0, replaced: 0, embedded: 0, after: null };
  const selection = { window, after: input.after ?? null };
  for await (const objectKey of objectsInWindow(ports.archive, tenantId, selection, skip)) {
    if (input.maxObjects !== undefined && result.objects >= input.maxObjects)
      return { ...result, embedded: counter.count };
    progress.beat({ objectKey, records: result.records });
    addCounts(result, await indexObjectIfPresent({ ...ports, embedder }, { tenantId, objectKey, window }, progress));
    result.objects += 1;
    result.after = objectKey;
  }
  return { ...result, embedded: counter.count, after: null };
}

/**
 * Indexes the given objects of a tenant, just written by the archive writer, so that their
 * records are recallable the same day (the records API does this after each append). Objects
 * already indexed are skipped; an object erased in between is left out.
 */
export async function indexArchivedObjects(
  ports: IndexPorts,
  input: { tenantId: string; objectKeys: readonly string[] },
): Promise<Omit<IndexRecordsResult, 'after'>> {
  const { tenantId } = input;
  const { counter, embedder } = indexingEmbedder(ports, tenantId);
  const indexed = await withTenant(ports.db, tenantId, (tx) =>
    selectIndexedObjects(tx, { objectKeys: [...input.objectKeys], form: RECORD_VECTOR_FORM }),
  );
  const result = { objects: 0, records: 0, replaced: 0, embedded: 0 };
  for (const objectKey of input.objectKeys.filter((k) => !indexed.has(k))) {
    addCounts(result, await indexObjectIfPresent({ ...ports, embedder }, { tenantId, objectKey, window: {} }, SILENT));
    result.objects += 1;
  }
  return { ...result, embedded: counter.count };
}

/** Records an object or chunk indexed, and of those the ones that replaced a row of an older form. */
interface Indexed {
  records: number;
  replaced: number;
}

const NONE: Indexed = { records: 0, replaced: 0 };

function addCounts(to: Indexed, more: Indexed): void {
  to.records += more.records;
  to.replaced += more.replaced;
}

/** The tenant's lane to the model behind its embedding cache, counting what reaches the model. */
function indexingEmbedder(ports: IndexPorts, tenantId: string) {
  const counter = countingEmbedder(inLane(ports.embedder, tenantId));
  return { counter, embedder: createCachedEmbedder(counter, tenantEmbeddingCache(ports.db, tenantId)) };
}

/** Drops the tenant's projection and indexes its whole archive again (cached vectors are reused). */
export async function rebuildRecordIndex(
  ports: IndexPorts,
  input: { tenantId: string },
  progress: Progress = SILENT,
): Promise<IndexRecordsResult & { dropped: number }> {
  const dropped = await withTenant(ports.db, input.tenantId, (tx) => deleteRecordIndex(tx));
  const indexed = await indexRecords(ports, { tenantId: input.tenantId }, progress);
  return { ...indexed, dropped: dropped.records };
}

/**
 * An object listed or written, then erased or expired before it was read: nothing of it may be
 * indexed. One an erasure of the tenant began (or ended) while it was being read is left for the
 * next call, which reads it as the erasure left it: what it read may hold the erased records.
 */
async function indexObjectIfPresent(
  ports: IndexPorts,
  target: { tenantId: string; objectKey: string; window: Window },
  progress: Progress,
): Promise<Indexed> {
  try {
    return await indexObject(ports, target, progress);
  } catch (error) {
    if ((error as Error).name !== 'ArchiveObjectNotFoundError' && !(error instanceof ErasureBegan)) throw error;
    return NONE;
  }
}

class ErasureBegan extends Error {
  override name = 'ErasureBegan';
}

/** Runs `write` under the tenant write lock unless an erasure holds the lease or began or ended since `epoch`. */
async function writeUnlessErased<T>(
  ports: IndexPorts,
  p: { tenantId: string; epoch: number },
  write: (tx: Queryable) => Promise<T>,
): Promise<T> {
  return withTenant(ports.db, p.tenantId, async (tx) => {
    if (!(await lockIfNoErasureSince(tx, p))) throw new ErasureBegan();
    return write(tx);
  });
}

async function indexObject(
  ports: IndexPorts,
  target: { tenantId: string; objectKey: string; window: Window },
  progress: Progress,
): Promise<Indexed> {
  const { tenantId, objectKey, window } = target;
  const epoch = await withTenant(ports.db, tenantId, (tx) => selectErasureEpoch(tx));
  const reader = new ObjectReader(ports.archive, objectKey);
  let pending: ArchivedRecord[] = [];
  const indexed = { ...NONE };
  let complete = true;
  const turns = new TurnsBefore(ports.db, tenantId);
  const flush = async () => {
    addCounts(indexed, await indexChunk(ports, { tenantId, epoch }, pending, turns, progress));
    pending = [];
  };
  for await (const archived of reader) {
    if (!inWindow(archived.record.observedAt, window)) {
      complete = false;
      continue;
    }
    if (recallableText(archived.record) === undefined) continue;
    pending.push(archived);
    if (pending.length >= INDEX_CHUNK) await flush();
  }
  await flush();
  if (complete) {
    await writeUnlessErased(ports, { tenantId, epoch }, (tx) =>
      insertIndexedObject(tx, { tenantId, objectKey, records: reader.stats.records, form: RECORD_VECTOR_FORM }),
    );
  }
  return indexed;
}

async function indexChunk(
  ports: IndexPorts,
  key: { tenantId: string; epoch: number },
  chunk: readonly ArchivedRecord[],
  turns: TurnsBefore,
  progress: Progress,
): Promise<Indexed> {
  const { tenantId } = key;
  if (chunk.length === 0) return NONE;
  const form = RECORD_VECTOR_FORM;
  const forms = await withTenant(ports.db, tenantId, (tx) =>
    selectIndexedForms(tx, { recordIds: chunk.map((a) => a.record.id) }),
  );
  const current = (recordId: string) => (forms.get(recordId) ?? 0) >= form;
  const kept = chunk.map(keptOf);
  // Records indexed already still tell what was said before the next one.
  const before = await turns.of(kept);
  const fresh = kept.map((row, i) => withVectorText(row, before[i])).filter(({ row }) => !current(row.recordId));
  if (fresh.length === 0) return NONE;
  // Not even the embedding cache gets the texts once an erasure began: it keeps a vector per text.
  await writeUnlessErased(ports, key, async () => undefined);
  const texts = fresh.map((r) => r.embedded);
  const vectors = await progress.during(ports.embedder.embed(texts, { kind: 'passage' }), { records: fresh.length });
  const records = fresh.map(({ row }, i) => ({ ...row, embedding: vectors[i] as number[] }));
  // A row of an older form goes in the transaction that inserts its replacement: recall never misses it.
  const older = records.filter((r) => forms.has(r.recordId)).map((r) => r.recordId);
  return writeUnlessErased(ports, key, async (tx) => {
    const replaced = await deleteOlderForms(tx, { recordIds: older, form });
    return {
      records: await insertIndexedRecords(tx, { tenantId, model: ports.embedder.name, form, records }),
      replaced,
    };
  });
}

type KeptRecord = Omit<IndexedRecord, 'embedding' | 'contextRecordId' | 'textHash'>;

/** What the index keeps of a record: its place in the archive, who and when, its redacted text told. */
function keptOf(a: ArchivedRecord): KeptRecord {
  const r = a.record;
  const speaker = redact(speakerOf(r)).text;
  const text = redact(recallableText(r) ?? '').text;
  return {
    recordId: r.id,
    objectKey: a.objectKey,
    line: a.line,
    contentHash: a.contentHash,
    sessionId: r.sessionId,
    userId: r.userId ?? null,
    agentId: r.agentId,
    taskType: r.taskType ?? null,
    kind: r.kind,
    observedAt: r.observedAt,
    speaker,
    text,
    told: toldText({ kind: r.kind, speaker, text, observedAt: r.observedAt }),
  };
}

/** The string the record's vector is made of (its told text and the turn before it) and its hash. */
function withVectorText(
  row: KeptRecord,
  before: TurnBefore | undefined,
): { row: Omit<IndexedRecord, 'embedding'>; embedded: string } {
  const embedded = withTurnBefore(row.told, before);
  const contextRecordId = takesTurnBefore(before) ? before.recordId : null;
  return { row: { ...row, contextRecordId, textHash: textHash(embedded) }, embedded };
}

/** Counts the texts that reach the model (behind the cache). */
function countingEmbedder(inner: Embedder): Embedder & { count: number } {
  const counter = {
    name: inner.name,
    dimension: inner.dimension,
    count: 0,
    embed: (texts: readonly string[], options?: Parameters<Embedder['embed']>[1]) => {
      counter.count += texts.length;
      return inner.embed(texts, options);
    },
  };
  return counter;
}
