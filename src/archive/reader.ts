import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { RawRecord } from '../contracts/raw-record.ts';
import { ArchiveObjectCorruptError, isZlibError } from './errors.ts';
import { parseDataKey } from './keys.ts';
import { splitLineBatches } from './lines.ts';
import type { LineEvent } from './lines.ts';
import { heldItems, inflateWhole, selectedItems } from './held-block.ts';
import type { ArchiveObjectCache, InflatedObject } from './object-cache.ts';
import { parseLine } from './parse-line.ts';
import type { QuarantineReason } from './parse-line.ts';
import { RecordIterator, type Item } from './record-iterator.ts';
import type { ArchiveStore } from './store.ts';

/** One valid record with what an evidence ref needs to cite it. */
export interface ArchivedRecord {
  record: RawRecord;
  objectKey: string;
  /** 1-based line number in the object. */
  line: number;
  /**
   * sha256 hex of the exact stored line bytes (without the newline). A full read computes it
   * when first read (a getter; serialized records include it).
   */
  readonly contentHash: string;
  /** Byte length of the stored line (without the newline). */
  lineBytes: number;
}

export interface QuarantinedLine {
  objectKey: string;
  line: number;
  reason: QuarantineReason;
  detail: string;
}

export interface ReadOptions {
  /** Read only these 1-based line numbers (e.g. a manifest's priority lines); stops after the last. */
  lines?: readonly number[];
  /** Longer lines are quarantined as `oversize_line` without being buffered. @default 1 MiB */
  maxLineBytes?: number;
  /**
   * Decompressed bytes held back until the gzip stream has been verified to its end; a larger
   * object is verified by draining it, then read a second time.
   * @default 4 MiB (the writer's default object size, so its objects are read in one pass)
   */
  verifyBufferBytes?: number;
  /** Quarantined lines kept with details; counts stay exact beyond it. @default 1000 */
  maxQuarantineDetails?: number;
  /** Called for every quarantined line, including those beyond `maxQuarantineDetails`. */
  onQuarantine?: (q: QuarantinedLine) => void;
  /**
   * Targeted reads (`lines`) take the object from this worker's cache of inflated objects, or
   * inflate it whole into it; objects it cannot hold are read as without it.
   */
  cache?: ArchiveObjectCache;
  /** The erasure epoch of the object's tenant, for the cache (`ArchiveObjectCache.get`). */
  erasureEpoch?: number;
}

export interface ReadStats {
  records: number;
  quarantined: number;
  byReason: Partial<Record<QuarantineReason, number>>;
}

export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;
export const DEFAULT_VERIFY_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Streams one archive object: gunzip → lines → JSON.parse → zod, never holding the object.
 *
 * "A corrupt object contributes no records" versus "never hold an object in memory": gzip
 * proves integrity only at its end (CRC32 + length trailer), so nothing is yielded before that
 * check passes. An object at most `verifyBufferBytes` long both compressed and decompressed
 * (every object the writer produces) is fetched whole and inflated in one synchronous gunzip
 * call, which checks the trailer; its lines are then parsed from one decoded string
 * (src/archive/held-block.ts), and each record's content hash is computed when first read. A
 * larger object (another producer, a raised limit) is drained to its trailer without keeping
 * anything and then streamed by another GET: more decompression, constant memory. Objects are
 * immutable, so the streamed pass reads the verified bytes; only a fault during that read
 * could surface after records were yielded. Holding bytes rather than parsed records keeps
 * the held data out of the garbage collector's way (parsed records surviving into the old
 * generation cost more than parsing itself).
 * Targeted reads (`lines`) hold just the selected records and stop after the last one, so
 * they verify the prefix they read; each record's `contentHash` protects the evidence that
 * cites it.
 */
export class ObjectReader implements AsyncIterable<ArchivedRecord> {
  readonly stats: ReadStats = { records: 0, quarantined: 0, byReason: {} };
  readonly quarantined: QuarantinedLine[] = [];
  private readonly maxLineBytes: number;
  private readonly tenantId: string | undefined;

  constructor(
    private readonly store: ArchiveStore,
    readonly objectKey: string,
    private readonly options: ReadOptions = {},
  ) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.tenantId = parseDataKey(objectKey)?.tenantId;
  }

  /**
   * A hand-written iterator rather than an async generator: an async generator pays a queue
   * and extra promise ticks for every `yield`, which at small records cost as much as
   * validating them. Records already validated are handed out from the current batch with
   * one resolved promise each; the batches themselves still come from async generators.
   */
  [Symbol.asyncIterator](): AsyncIterator<ArchivedRecord> {
    return new RecordIterator(this.options.lines ? this.readSelected(this.options.lines) : this.readAll(), this);
  }

  /** @internal Counts one record handed out. */
  countRecord(): void {
    this.stats.records += 1;
  }

  private async *readAll(): AsyncGenerator<Item[]> {
    const limit = this.options.verifyBufferBytes ?? DEFAULT_VERIFY_BUFFER_BYTES;
    const block = await this.inflateWhole(limit);
    if (block !== undefined) {
      const context = { objectKey: this.objectKey, tenantId: this.tenantId, maxLineBytes: this.maxLineBytes };
      yield* heldItems(block, context);
      return;
    }
    await this.verifyByDraining();
    yield* this.items(await this.open(), {});
  }

  private async inflateWhole(limit: number): Promise<Buffer | undefined> {
    const source = await this.store.getStream(this.objectKey);
    try {
      return await inflateWhole(source, limit);
    } catch (error) {
      throw this.asCorrupt(error);
    }
  }

  /** Inflates a large object to its trailer without keeping anything (constant memory). */
  private async verifyByDraining(): Promise<void> {
    const stream = await this.open();
    try {
      for await (const _ of stream as AsyncIterable<Buffer>);
    } catch (error) {
      throw this.asCorrupt(error);
    } finally {
      stream.destroy();
    }
  }

  private async *readSelected(lines: readonly number[]): AsyncGenerator<Item[]> {
    const cache = this.options.cache;
    const limit = this.options.verifyBufferBytes ?? DEFAULT_VERIFY_BUFFER_BYTES;
    const inflated =
      cache && lines.length > 0
        ? await cache.get(this.store, this.objectKey, limit, this.options.erasureEpoch)
        : undefined;
    if (inflated) {
      yield* this.selectedFromHeld(inflated, lines);
      return;
    }
    const wanted = new Set(lines);
    const last = Math.max(0, ...wanted);
    const held: Item[] = [];
    const seen = new Set<number>();
    if (last > 0) {
      for await (const batch of this.items(await this.open(), { want: (line) => wanted.has(line) })) {
        for (const item of batch) seen.add(item.value.line);
        held.push(...batch);
        if (seen.has(last)) break; // stop early: the rest of the object is not needed
      }
    }
    yield held;
    yield this.missingItems([...wanted].filter((line) => !seen.has(line)));
  }

  /** The wanted lines from an object held inflated, in the order and with the outcome of a streamed read. */
  private *selectedFromHeld(held: InflatedObject, lines: readonly number[]): Generator<Item[]> {
    const wanted = [...new Set(lines)].sort((a, b) => a - b);
    const context = { objectKey: this.objectKey, tenantId: this.tenantId, maxLineBytes: this.maxLineBytes };
    const found = selectedItems(held, wanted, context);
    yield found;
    const seen = new Set(found.map((item) => item.value.line));
    yield this.missingItems(wanted.filter((line) => !seen.has(line)));
  }

  private missingItems(lines: number[]): Item[] {
    return lines
      .sort((a, b) => a - b)
      .map((line) => {
        const detail = `line ${line} requested but the object ends before it`;
        return {
          kind: 'quarantine',
          value: { objectKey: this.objectKey, line, reason: 'missing_line', detail },
        } satisfies Item;
      });
  }

  private async open(): Promise<Readable> {
    const source = await this.store.getStream(this.objectKey);
    // Larger output chunks than the 16 KiB default: fewer events per object.
    const gunzip = createGunzip({ chunkSize: 64 * 1024 });
    // pipeline forwards a source error into gunzip, so iteration sees every failure.
    return pipeline(source, gunzip, () => undefined);
  }

  private async *items(
    source: Readable | Buffer[],
    split: { want?: (line: number) => boolean },
  ): AsyncGenerator<Item[]> {
    try {
      for await (const events of splitLineBatches(source, { maxLineBytes: this.maxLineBytes, ...split })) {
        yield events.map((event) => this.toItem(event));
      }
    } catch (error) {
      throw this.asCorrupt(error);
    } finally {
      if (!Array.isArray(source)) source.destroy();
    }
  }

  private asCorrupt(error: unknown): unknown {
    return isZlibError(error)
      ? new ArchiveObjectCorruptError(this.objectKey, (error as Error).message, { cause: error })
      : error;
  }

  private toItem(event: LineEvent): Item {
    const objectKey = this.objectKey;
    if (event.type === 'oversize') {
      const detail = `line is ${event.size} bytes, over the ${this.maxLineBytes}-byte limit`;
      return { kind: 'quarantine', value: { objectKey, line: event.line, reason: 'oversize_line', detail } };
    }
    if (event.type === 'truncated') {
      const detail = `last line (${event.size} bytes) has no trailing newline`;
      return { kind: 'quarantine', value: { objectKey, line: event.line, reason: 'truncated_line', detail } };
    }
    const parsed = parseLine(event.bytes, this.tenantId);
    if (!parsed.ok) {
      const value = { objectKey, line: event.line, reason: parsed.reason, detail: parsed.detail };
      return { kind: 'quarantine', value };
    }
    const value = {
      record: parsed.record,
      objectKey,
      line: event.line,
      contentHash: parsed.contentHash,
      lineBytes: event.bytes.length,
    };
    return { kind: 'record', value };
  }

  /** @internal Counts and reports one quarantined line. */
  quarantine(q: QuarantinedLine): void {
    this.stats.quarantined += 1;
    this.stats.byReason[q.reason] = (this.stats.byReason[q.reason] ?? 0) + 1;
    if (this.quarantined.length < (this.options.maxQuarantineDetails ?? 1000)) this.quarantined.push(q);
    this.options.onQuarantine?.(q);
  }
}

/** Reads one object; iterate the result, then look at `stats` and `quarantined`. */
export function readObject(store: ArchiveStore, objectKey: string, options?: ReadOptions): ObjectReader {
  return new ObjectReader(store, objectKey, options);
}
