import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { splitLineBatches, type LineEvent } from './lines.ts';
import { DEFAULT_MAX_LINE_BYTES } from './reader.ts';
import { RejectionLog, type Rejection, type RejectionCode } from './rejections.ts';
import type { ArchiveStore } from './store.ts';
import { writeBatch } from './writer.ts';
import type { WrittenObject } from './writer.ts';

export interface IngestOptions {
  tenantId: string;
  producer: string;
  /** JSONL files, each gzip-compressed when it ends in `.gz`, archived as one upload. */
  paths: readonly string[];
  /**
   * Records per writer batch. Batches are cut at fixed line counts, so the same file always
   * forms the same batches and re-ingesting it writes nothing new. @default 5000
   */
  batchSize?: number;
  /** @default 1 MiB */
  maxLineBytes?: number;
  /** The upload is refused, before anything is written, when its files hold more bytes (decompressed). @default 1 GiB */
  maxInputBytes?: number;
  /** Rejections listed with their reasons; the rest are only counted. @default 100 */
  maxRejectionDetails?: number;
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
  /** The first `maxRejectionDetails` rejected lines, in input order. */
  rejected: Rejection[];
  /** Every rejected line, counted (also those beyond the listed details). */
  rejectedCount: number;
  rejectedByCode: Partial<Record<RejectionCode, number>>;
}

export const DEFAULT_MAX_INPUT_BYTES = 1024 * 1024 * 1024;

/** The input decompresses to more than the configured cap (a zip bomb, or a file that needs a higher cap). */
export class IngestInputTooLargeError extends Error {
  override name = 'IngestInputTooLargeError';
  constructor(
    readonly path: string,
    readonly maxInputBytes: number,
  ) {
    super(
      `${path}: the upload holds more than ${maxInputBytes} bytes once decompressed (the input cap); nothing was archived`,
    );
  }
}

// fatal, as the reader decodes: a line that is not UTF-8 is rejected, never stored with U+FFFD.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Streams JSONL files into the archive: only one batch of records is in memory at a time, ids
 * are remembered across batches and files (a duplicate is rejected wherever it appears in the
 * upload), and rejections beyond the first few are only counted. Lines that are not UTF-8 or
 * JSON (or too long) are rejected here; the writer rejects the rest. Blank lines are skipped
 * (editors leave them), not rejected. Ids are not checked against records archived by earlier
 * uploads: that would read every object of the tenant's days.
 */
export async function ingestJsonlFiles(store: ArchiveStore, options: IngestOptions): Promise<IngestResult> {
  const maxInputBytes = options.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES;
  let total = 0;
  for (const path of options.paths) {
    total += await inputBytes(path, maxInputBytes - total, maxInputBytes);
  }
  const log = new RejectionLog(options.maxRejectionDetails);
  const result = { lines: 0, accepted: 0, written: 0, alreadyPresent: 0, objects: [] as WrittenObject[] };
  const seenIds = new Set<string>();
  for (const [fileIndex, path] of options.paths.entries()) {
    const file = options.paths.length > 1 ? { file: path } : {};
    const reject = (r: Rejection): void => log.add({ ...r, ...file }, fileIndex);
    await ingestOne(store, options, { path, seenIds, reject, result });
  }
  const summary = log.summary();
  return { ...result, rejected: summary.details, rejectedCount: summary.total, rejectedByCode: summary.byCode };
}

interface FileRun {
  path: string;
  seenIds: Set<string>;
  reject: (r: Rejection) => void;
  result: Omit<IngestResult, 'rejected' | 'rejectedCount' | 'rejectedByCode'>;
}

async function ingestOne(store: ArchiveStore, options: IngestOptions, run: FileRun): Promise<void> {
  const batchSize = options.batchSize ?? 5000;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const { result, reject } = run;
  const linesBefore = result.lines;
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
      seenIds: run.seenIds,
      ...(options.now ? { now: options.now } : {}),
    });
    result.accepted += batch.accepted;
    result.written += batch.written;
    result.alreadyPresent += batch.alreadyPresent;
    result.objects.push(...batch.objects);
    for (const r of batch.rejected) reject(r);
    values = [];
    lineNumbers = [];
    options.onProgress?.(result.lines);
  };
  for await (const events of splitLineBatches(openInput(run.path), { maxLineBytes })) {
    for (const event of events) {
      result.lines = linesBefore + event.line;
      const parsed = parseInputLine(event, maxLineBytes);
      if (parsed === undefined) continue;
      if ('code' in parsed) reject({ line: event.line, ...parsed });
      else {
        values.push(parsed.value);
        lineNumbers.push(event.line);
      }
      if (values.length >= batchSize) await flush();
    }
  }
  await flush();
}

/** The JSON value of one input line, why it is rejected, or undefined for a blank line. */
function parseInputLine(
  event: LineEvent,
  maxLineBytes: number,
): { value: unknown } | { code: RejectionCode; reason: string } | undefined {
  const bytes = event.type === 'oversize' ? undefined : event.bytes;
  if (!bytes) {
    const size = event.type === 'line' ? event.bytes.length : event.size;
    return { code: 'oversize_line', reason: `line is ${size} bytes, over the ${maxLineBytes}-byte limit` };
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { code: 'invalid_utf8', reason: 'line is not valid UTF-8' };
  }
  const start = text.trimStart();
  if (start === '') return undefined;
  // A record is an object: anything else is refused without asking JSON.parse, whose
  // exceptions cost tens of microseconds each (a file of a million such lines stays quick).
  if (!start.startsWith('{')) return { code: 'invalid_json', reason: 'invalid JSON: a record line is an object, {…}' };
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { code: 'invalid_json', reason: `invalid JSON: ${(error as Error).message.slice(0, 200)}` };
  }
}

/**
 * The bytes a file holds once decompressed, up to `limit` (what is left of the upload's `cap`): a gzip file is inflated once
 * without keeping anything (CPU only), so an oversized upload is refused before any write.
 */
async function inputBytes(path: string, limit: number, cap: number): Promise<number> {
  if (!path.endsWith('.gz')) {
    const size = (await stat(path)).size;
    if (size > limit) throw new IngestInputTooLargeError(path, cap);
    return size;
  }
  let size = 0;
  const stream = openInput(path);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      stream.destroy();
      throw new IngestInputTooLargeError(path, cap);
    }
  }
  return size;
}

function openInput(path: string): Readable {
  const file = createReadStream(path);
  if (!path.endsWith('.gz')) return file;
  const gunzip = createGunzip();
  file.on('error', (error) => gunzip.destroy(error));
  return file.pipe(gunzip);
}
