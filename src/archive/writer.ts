import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { RawRecordInput } from '../contracts/raw-record.ts';
import type { RawRecord } from '../contracts/raw-record.ts';
import { markActive } from './active-index.ts';
import { dataKey, manifestKeyFor, utcDate } from './keys.ts';
import { ManifestBuilder } from './manifest.ts';
import type { Manifest } from './manifest.ts';
import { summarizeIssues } from './parse-line.ts';
import { readObject, DEFAULT_MAX_LINE_BYTES } from './reader.ts';
import type { Rejection } from './rejections.ts';
import type { ArchiveStore, PutResult } from './store.ts';

const gzip = promisify(gzipCallback);

export interface WriteBatchInput {
  tenantId: string;
  /** Producer name in object keys: lowercase letters, digits, `_` or `-`. */
  producer: string;
  /** Candidate records, validated here. The whole batch is held in memory: keep it bounded. */
  records: readonly unknown[];
  /** The caller's line numbers for `records` (for rejections). @default index + 1 */
  lineNumbers?: readonly number[];
  /** Stamped as `recordedAt` where a record has none. @default new Date() */
  now?: Date;
  /** Raw (uncompressed) bytes per object before it is split. @default 4 MiB (see reader) */
  maxObjectBytes?: number;
  /** Serialized records longer than this are rejected: the reader would quarantine them. @default 1 MiB */
  maxLineBytes?: number;
  /**
   * Ids accepted by earlier batches of the same upload (an ingest of several batches or files):
   * a record whose id is in it is rejected as a duplicate, and accepted ids are added to it.
   */
  seenIds?: Set<string>;
}

export interface WrittenObject {
  objectKey: string;
  manifestKey: string;
  status: PutResult;
  recordCount: number;
  /** A data object existed without its manifest (a crash between the two puts); rebuilt now. */
  repairedManifest?: boolean;
}

export interface WriteBatchResult {
  objects: WrittenObject[];
  written: number;
  alreadyPresent: number;
  /** Records that are in the archive after this call (newly or already). */
  accepted: number;
  rejected: Rejection[];
}

interface Prepared {
  record: RawRecord;
  /** The stored line, recordedAt stamped. */
  line: string;
  /** The record as sent, before stamping: what the idempotent key is derived from. */
  canonical: string;
}

export const DEFAULT_MAX_OBJECT_BYTES = 4 * 1024 * 1024;
const PRODUCER = /^[a-z0-9][a-z0-9_-]{0,47}$/;

/**
 * Validates a batch and archives it as one object per UTC date of `observedAt` (split when
 * larger than `maxObjectBytes`), each followed by its manifest. Keys derive from the batch's
 * content as sent, so re-sending the same batch finds its objects and writes nothing.
 * The manifest is written last: it is the commit marker, and sampling never sees an object
 * whose manifest is missing.
 */
export async function writeBatch(store: ArchiveStore, input: WriteBatchInput): Promise<WriteBatchResult> {
  if (!PRODUCER.test(input.producer)) throw new Error(`invalid producer name ${JSON.stringify(input.producer)}`);
  const { prepared, rejected } = prepareRecords(input);
  const objects: WrittenObject[] = [];
  for (const [date, group] of groupByDate(prepared)) {
    // Before the objects: every committed object's tenant and day is in the index.
    await markActive(store, input.tenantId, date);
    for (const chunk of chunkBySize(group, input.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES)) {
      objects.push(await writeObject(store, input, date, chunk));
    }
  }
  return {
    objects,
    written: objects.filter((o) => o.status === 'written').length,
    alreadyPresent: objects.filter((o) => o.status === 'alreadyPresent').length,
    accepted: objects.reduce((n, o) => n + o.recordCount, 0),
    rejected,
  };
}

function prepareRecords(input: WriteBatchInput): { prepared: Prepared[]; rejected: Rejection[] } {
  const recordedAt = (input.now ?? new Date()).toISOString();
  const maxLineBytes = input.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const prepared: Prepared[] = [];
  const rejected: Rejection[] = [];
  const ids = input.seenIds ?? new Set<string>();
  for (const [index, value] of input.records.entries()) {
    const line = input.lineNumbers?.[index] ?? index + 1;
    const outcome = prepareOne(value, input.tenantId, ids, recordedAt, maxLineBytes);
    if ('code' in outcome) rejected.push({ line, ...outcome });
    else {
      ids.add(outcome.record.id);
      prepared.push(outcome);
    }
  }
  return { prepared, rejected };
}

type Refusal = Omit<Rejection, 'line' | 'file'>;

/** The prepared record, or why it is rejected. */
function prepareOne(
  value: unknown,
  tenantId: string,
  ids: Set<string>,
  recordedAt: string,
  maxLineBytes: number,
): Prepared | Refusal {
  const parsed = RawRecordInput.safeParse(value);
  if (!parsed.success) return { code: 'schema', reason: `schema: ${summarizeIssues(parsed.error)}` };
  const sent = parsed.data;
  if (sent.tenantId !== tenantId)
    return { code: 'tenant_mismatch', reason: `tenantId ${sent.tenantId} does not match the batch tenant ${tenantId}` };
  if (ids.has(sent.id)) return { code: 'duplicate_id', reason: `duplicate id ${sent.id}: sent earlier in this upload` };
  const record: RawRecord = { ...sent, recordedAt: sent.recordedAt ?? recordedAt };
  const lines = serialize(record, sent);
  if (typeof lines === 'string') return { code: 'unserializable', reason: lines };
  const size = Buffer.byteLength(lines.line);
  if (size > maxLineBytes)
    return { code: 'oversize_record', reason: `record is ${size} bytes, over the ${maxLineBytes}-byte line limit` };
  return { record, ...lines };
}

/**
 * JSON.stringify recurses: a payload nested a few thousand levels deep (which JSON.parse
 * accepts) throws a RangeError. Caught per record, so one such line is rejected and the
 * rest of its batch is still written.
 */
function serialize(record: RawRecord, sent: unknown): { line: string; canonical: string } | string {
  try {
    return { line: JSON.stringify(record), canonical: JSON.stringify(sent) };
  } catch (error) {
    return `record cannot be serialized (${(error as Error).message}); is it nested too deeply?`;
  }
}

/** Insertion-ordered, so records keep the producer's order inside each object. */
function groupByDate(prepared: Prepared[]): Map<string, Prepared[]> {
  const groups = new Map<string, Prepared[]>();
  for (const p of prepared) {
    const date = utcDate(p.record.observedAt);
    const group = groups.get(date);
    if (group) group.push(p);
    else groups.set(date, [p]);
  }
  return groups;
}

function* chunkBySize(group: Prepared[], maxBytes: number): Generator<Prepared[]> {
  let chunk: Prepared[] = [];
  let bytes = 0;
  for (const p of group) {
    const size = Buffer.byteLength(p.line) + 1;
    if (chunk.length > 0 && bytes + size > maxBytes) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(p);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}

/** First id + content hash: deterministic for the same records sent in the same order. */
function seqOf(chunk: Prepared[]): string {
  const hash = createHash('sha256');
  for (const p of chunk) hash.update(p.canonical).update('\n');
  return `${chunk[0]?.record.id}-${hash.digest('hex').slice(0, 12)}`;
}

async function writeObject(
  store: ArchiveStore,
  input: WriteBatchInput,
  date: string,
  chunk: Prepared[],
): Promise<WrittenObject> {
  const objectKey = dataKey({ tenantId: input.tenantId, date, producer: input.producer, seq: seqOf(chunk) });
  const manifestKey = manifestKeyFor(objectKey);
  const base = { objectKey, manifestKey };
  const meta = {
    objectKey,
    tenantId: input.tenantId,
    date,
    producer: input.producer,
    createdAt: (input.now ?? new Date()).toISOString(),
  };
  if (await store.head(manifestKey)) return { ...base, status: 'alreadyPresent', recordCount: chunk.length };

  const body = await gzip(Buffer.from(chunk.map((p) => `${p.line}\n`).join('')));
  const status = await store.putIfAbsent(objectKey, body, 'application/x-ndjson');
  // The stored bytes win: if the object was already there its recordedAt stamps differ from
  // ours, so its manifest is rebuilt from what is actually stored.
  const manifest =
    status === 'written'
      ? manifestFromChunk(chunk, { ...meta, compressedBytes: body.length })
      : await manifestFromStore(store, objectKey, meta);
  await store.putIfAbsent(manifestKey, Buffer.from(JSON.stringify(manifest)), 'application/json');
  return {
    ...base,
    status,
    recordCount: manifest.recordCount,
    ...(status === 'alreadyPresent' ? { repairedManifest: true } : {}),
  };
}

type ManifestMeta = Parameters<ManifestBuilder['finish']>[0];

function manifestFromChunk(chunk: Prepared[], meta: ManifestMeta): Manifest {
  const builder = new ManifestBuilder();
  chunk.forEach((p, i) => builder.add(p.record, i + 1, Buffer.byteLength(p.line)));
  return builder.finish(meta);
}

/** Rebuilds a manifest by reading the stored object (only after a crash between the two puts). */
export async function manifestFromStore(
  store: ArchiveStore,
  objectKey: string,
  meta: Omit<ManifestMeta, 'compressedBytes' | 'objectKey'>,
): Promise<Manifest> {
  const builder = new ManifestBuilder();
  for await (const r of readObject(store, objectKey)) builder.add(r.record, r.line, r.lineBytes);
  const info = await store.head(objectKey);
  return builder.finish({ ...meta, objectKey, compressedBytes: info?.size ?? 0 });
}
