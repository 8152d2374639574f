import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { splitLines } from './lines.ts';
import { DEFAULT_MAX_LINE_BYTES } from './reader.ts';
import type { ArchiveStore } from './store.ts';
import { writeBatch } from './writer.ts';
import type { Rejection, WrittenObject } from './writer.ts';

export interface IngestOptions {
  tenantId: string;
  producer: string;
  /** A JSONL file, gzip-compressed when it ends in `.gz`. */
  path: string;
  /**
   * Records per writer batch. Batches are cut at fixed line counts, so the same file always
   * forms the same batches and re-ingesting it writes nothing new. @default 5000
   */
  batchSize?: number;
  /** @default 1 MiB */
  maxLineBytes?: number;
  now?: Date;
  /** Called after each batch with the number of input lines read so far. */
  onProgress?: (lines: number) => void;
}

export interface IngestResult {
  lines: number;
  accepted: number;
  written: number;
  alreadyPresent: number;
  objects: WrittenObject[];
  rejected: Rejection[];
}

/**
 * Streams a JSONL file into the archive: only one batch of records is in memory at a time.
 * Lines that are not JSON (or too long) are rejected here; the writer rejects the rest.
 * Blank lines are skipped (editors leave them), not rejected.
 */
export async function ingestJsonlFile(store: ArchiveStore, options: IngestOptions): Promise<IngestResult> {
  const batchSize = options.batchSize ?? 5000;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const result: IngestResult = { lines: 0, accepted: 0, written: 0, alreadyPresent: 0, objects: [], rejected: [] };
  let values: unknown[] = [];
  let lineNumbers: number[] = [];
  const flush = async (): Promise<void> => {
    if (values.length === 0) return;
    const batch = await writeBatch(store, {
      tenantId: options.tenantId,
      producer: options.producer,
      records: values,
      lineNumbers,
      maxLineBytes,
      ...(options.now ? { now: options.now } : {}),
    });
    result.accepted += batch.accepted;
    result.written += batch.written;
    result.alreadyPresent += batch.alreadyPresent;
    result.objects.push(...batch.objects);
    result.rejected.push(...batch.rejected);
    values = [];
    lineNumbers = [];
    options.onProgress?.(result.lines);
  };
  for await (const event of splitLines(openInput(options.path), { maxLineBytes })) {
    result.lines = event.line;
    const bytes = event.type === 'oversize' ? undefined : event.bytes;
    if (!bytes) {
      const size = event.type === 'line' ? event.bytes.length : event.size;
      result.rejected.push({ line: event.line, reason: `line is ${size} bytes, over the ${maxLineBytes}-byte limit` });
      continue;
    }
    const text = bytes.toString('utf8');
    if (text.trim() === '') continue;
    try {
      values.push(JSON.parse(text));
      lineNumbers.push(event.line);
    } catch (error) {
      result.rejected.push({ line: event.line, reason: `invalid JSON: ${(error as Error).message}` });
    }
    if (values.length >= batchSize) await flush();
  }
  await flush();
  result.rejected.sort((a, b) => a.line - b.line);
  return result;
}

function openInput(path: string): Readable {
  const file = createReadStream(path);
  if (!path.endsWith('.gz')) return file;
  const gunzip = createGunzip();
  file.on('error', (error) => gunzip.destroy(error));
  return file.pipe(gunzip);
}
