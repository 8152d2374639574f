import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { createGunzip, gzip as gzipCallback } from 'node:zlib';
import { DATA_SUFFIX, MANIFEST_SUFFIX, dataKey, manifestKeyFor, parseDataKey, tenantPrefix } from '../archive/keys.ts';
import { splitLines } from '../archive/lines.ts';
import { readManifest } from '../archive/manifest-io.ts';
import { lineHash, parseLine } from '../archive/parse-line.ts';
import type { ArchiveStore } from '../archive/store.ts';
import { manifestFromStore } from '../archive/writer.ts';
import { needlesOf } from './subject.ts';

const gzip = promisify(gzipCallback);
/** Lines are read whole here (erasure must see every byte); far above the writer's limit. */
const MAX_LINE = 64 * 1024 * 1024;

interface RawLine {
  line: number;
  bytes: Buffer;
  /** Parsed record id and user, when the line is a valid record. */
  id?: string;
  userId?: string;
}

/** Every line of an object as stored, or undefined when the object is gone. */
async function readLines(store: ArchiveStore, objectKey: string): Promise<RawLine[] | undefined> {
  if (!(await store.head(objectKey))) return undefined;
  const tenantId = parseDataKey(objectKey)?.tenantId;
  const stream = (await store.getStream(objectKey)).pipe(createGunzip());
  const out: RawLine[] = [];
  for await (const ev of splitLines(stream, { maxLineBytes: MAX_LINE })) {
    if (ev.type === 'oversize' || (ev.type === 'truncated' && !ev.bytes)) continue;
    const bytes = ev.bytes as Buffer;
    const parsed = parseLine(bytes, tenantId);
    out.push(
      parsed.ok
        ? {
            line: ev.line,
            bytes,
            id: parsed.record.id,
            ...(parsed.record.userId ? { userId: parsed.record.userId } : {}),
          }
        : { line: ev.line, bytes },
    );
  }
  return out;
}

/** A line belongs to the subject when its record names them, or (unparsable) it mentions them. */
const isSubject = (l: RawLine, userId: string): boolean =>
  l.id !== undefined ? l.userId === userId : l.bytes.includes(userId);

export interface SubjectInObject {
  objectKey: string;
  recordIds: string[];
  needles: string[];
}

/**
 * Finds the tenant's objects that hold the subject's records. Manifests list their users, so
 * only those objects are opened (and objects whose manifest is missing, e.g. after a crash in
 * the middle of a rewrite). Needles also said by other users in the same objects are dropped:
 * finding them elsewhere would not point at the subject.
 */
export async function findSubjectObjects(
  store: ArchiveStore,
  tenantId: string,
  userId: string,
  onObject: () => void = () => {},
): Promise<SubjectInObject[]> {
  const dataKeys: string[] = [];
  const manifests = new Set<string>();
  for await (const info of store.list(tenantPrefix(tenantId))) {
    if (info.key.endsWith(DATA_SUFFIX)) dataKeys.push(info.key);
    else if (info.key.endsWith(MANIFEST_SUFFIX)) manifests.add(info.key);
  }
  const found: SubjectInObject[] = [];
  for (const objectKey of dataKeys) {
    onObject();
    if (manifests.has(manifestKeyFor(objectKey)) && !(await readManifest(store, objectKey)).userIds.includes(userId))
      continue;
    const lines = (await readLines(store, objectKey)) ?? [];
    const mine = lines.filter((l) => isSubject(l, userId));
    if (mine.length === 0) continue;
    const others = lines.filter((l) => !isSubject(l, userId)).map((l) => l.bytes.toString('utf8'));
    const needles = new Set<string>();
    for (const l of mine) {
      const parsed = l.id === undefined ? undefined : parseLine(l.bytes, tenantId);
      for (const n of parsed?.ok ? needlesOf(parsed.record) : [])
        if (!others.some((o) => o.includes(n))) needles.add(n);
    }
    found.push({ objectKey, recordIds: mine.flatMap((l) => (l.id ? [l.id] : [])), needles: [...needles] });
  }
  return found;
}

export interface RecordMove {
  recordId: string;
  line: number;
  contentHash: string;
}

export type RewriteOutcome =
  | { status: 'absent' }
  | { status: 'clean' }
  | { status: 'emptied'; removed: number }
  | { status: 'rewritten'; removed: number; kept: number; newObjectKey: string; moves: RecordMove[] };

/**
 * Writes the object again without the subject's lines (every other line byte for byte, so the
 * content hashes that evidence cites still hold) under a new key, with a new manifest. Does
 * not delete the old object: the caller re-points evidence first, then calls `deleteObject`.
 * Safe to repeat: the new key derives from the kept bytes and puts are put-if-absent.
 */
export async function rewriteWithoutSubject(
  store: ArchiveStore,
  objectKey: string,
  userId: string,
  createdAt: string,
): Promise<RewriteOutcome> {
  const parts = parseDataKey(objectKey);
  if (!parts) throw new Error(`not an archive data key: ${objectKey}`);
  const lines = await readLines(store, objectKey);
  if (!lines) return { status: 'absent' };
  const kept = lines.filter((l) => !isSubject(l, userId));
  const removed = lines.length - kept.length;
  if (removed === 0) return { status: 'clean' };
  const firstId = kept.find((l) => l.id !== undefined)?.id;
  if (firstId === undefined) return { status: 'emptied', removed };
  const body = Buffer.concat(kept.flatMap((l) => [l.bytes, Buffer.from('\n')]));
  const seq = `${firstId}-${createHash('sha256').update(body).digest('hex').slice(0, 12)}`;
  const newObjectKey = dataKey({ ...parts, seq });
  await store.putIfAbsent(newObjectKey, await gzip(body), 'application/x-ndjson');
  const newManifestKey = manifestKeyFor(newObjectKey);
  if (!(await store.head(newManifestKey))) {
    const manifest = await manifestFromStore(store, newObjectKey, {
      tenantId: parts.tenantId,
      date: parts.date,
      producer: parts.producer,
      createdAt,
    });
    await store.putIfAbsent(newManifestKey, Buffer.from(JSON.stringify(manifest)), 'application/json');
  }
  const moves = kept.flatMap((l, i) => (l.id ? [{ recordId: l.id, line: i + 1, contentHash: lineHash(l.bytes) }] : []));
  return { status: 'rewritten', removed, kept: kept.length, newObjectKey, moves };
}

/** Manifest first: without it sampling no longer sees the object, so no reader chases a deleted key. */
export async function deleteObject(store: ArchiveStore, objectKey: string): Promise<void> {
  await store.delete(manifestKeyFor(objectKey));
  await store.delete(objectKey);
}

export interface ArchiveFinding {
  objectKey: string;
  what: 'record_of_subject' | 'user_id' | 'text';
}

/**
 * The archive half of the verification scan: every object and manifest of the tenant, read
 * whole, must hold no record of the subject, no occurrence of the user id and none of the
 * subject's words. Cost follows the archive's size; erasure is rare and must be proven.
 */
export async function scanArchiveForSubject(
  store: ArchiveStore,
  tenantId: string,
  userId: string,
  needles: readonly string[],
  onObject: () => void = () => {},
): Promise<{ objects: number; findings: ArchiveFinding[] }> {
  const findings: ArchiveFinding[] = [];
  let objects = 0;
  for await (const info of store.list(tenantPrefix(tenantId))) {
    onObject();
    objects += 1;
    let text: string;
    if (info.key.endsWith(DATA_SUFFIX)) {
      const lines = (await readLines(store, info.key)) ?? [];
      if (lines.some((l) => l.id !== undefined && l.userId === userId))
        findings.push({ objectKey: info.key, what: 'record_of_subject' });
      text = lines.map((l) => l.bytes.toString('utf8')).join('\n');
    } else text = (await store.getBytes(info.key)).toString('utf8');
    if (text.includes(userId)) findings.push({ objectKey: info.key, what: 'user_id' });
    if (needles.some((n) => n !== userId && text.includes(n))) findings.push({ objectKey: info.key, what: 'text' });
  }
  return { objects, findings };
}
