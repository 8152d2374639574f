import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { FileArchiveStore } from '../../../src/archive/file-store.ts';
import { dataKey } from '../../../src/archive/keys.ts';
import type { ArchivedRecord, ObjectReader } from '../../../src/archive/reader.ts';

/** A fresh file:// store in a temp directory, removed by `cleanup`. */
export async function tempStore(): Promise<{ store: FileArchiveStore; root: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'nocturne-archive-'));
  return { store: new FileArchiveStore(root), root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

export const objectKeyFor = (tenantId: string, seq = '01JQ0000000000000000000000-0123456789ab'): string =>
  dataKey({ tenantId, date: '2026-03-01', producer: 'fixture', seq });

/** Stores hand-made JSONL text as a gzip object, bypassing the writer (to inject faults). */
export async function putRawObject(store: FileArchiveStore, key: string, text: string | Buffer): Promise<Buffer> {
  const body = gzipSync(typeof text === 'string' ? Buffer.from(text) : text);
  await store.putIfAbsent(key, body, 'application/x-ndjson');
  return body;
}

export async function collect(reader: ObjectReader): Promise<ArchivedRecord[]> {
  const out: ArchivedRecord[] = [];
  for await (const r of reader) out.push(r);
  return out;
}
