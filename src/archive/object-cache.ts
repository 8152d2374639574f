import { isAscii } from 'node:buffer';
import { ArchiveObjectNotFoundError, isZlibError } from './errors.ts';
import { inflateWhole } from './held-block.ts';
import type { ArchiveStore, ObjectInfo } from './store.ts';

/** The default bound on inflated bytes held: a few dozen of the writer's objects. */
export const DEFAULT_OBJECT_CACHE_BYTES = 128 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * One object inflated whole (its gzip trailer verified), with the offset of every newline, so
 * any line is a slice away. `ascii` says its bytes decode as Latin-1, with char offsets equal to
 * byte offsets.
 */
export interface InflatedObject {
  readonly block: Buffer;
  /** Byte offset of the newline ending each line: line n (1-based) ends at `newlines[n - 1]`. */
  readonly newlines: Uint32Array;
  readonly ascii: boolean;
}

interface Entry {
  /** Size and ETag when it was read: an object that no longer matches is read again. */
  identity: string;
  /** The erasure epoch of the object's tenant when the identity was last checked, if the caller knew it. */
  erasureEpoch: number | undefined;
  object: InflatedObject;
  bytes: number;
}

export interface ObjectCacheStats {
  hits: number;
  /** Hits served without asking the store, on the caller's unchanged erasure epoch. */
  unchecked: number;
  misses: number;
  evictions: number;
  bytes: number;
}

/**
 * Archive objects inflated once per worker instead of once per batch: a run's batches read
 * scattered lines of the same objects, and before this each batch inflated each object again up
 * to its last wanted line. Size-bounded (least recently used out first).
 *
 * Never stale, never erased data: a read asks the store for the object's current size and ETag
 * (a HEAD, far cheaper than GET + inflate) and uses the held copy only when both match what was
 * held; an object that is gone (erasure deletes the old object after writing the rest under a
 * new key) is dropped and reported missing, as an uncached read would. So an erasure in another
 * worker, between two batches, is seen by the next read. The store's objects are immutable
 * (put-if-absent); the identity check also covers one written again under the same key.
 *
 * Only erasure removes or rewrites objects, and every erasure bumps its tenant's erasure epoch
 * in the note store before it touches one. A caller that read the epoch of the object's tenant
 * (with no erasure holding the lease) passes it: a copy held or last checked under that same
 * epoch is used without the HEAD, since no erasure can have begun since. A replay batch reads
 * dozens of objects, and the HEADs were most of its archive time.
 */
export class ArchiveObjectCache {
  private readonly entries = new Map<string, Entry>(); // insertion order = recency
  private readonly loading = new Map<string, Promise<InflatedObject | undefined>>();
  private held = 0;
  readonly stats: ObjectCacheStats = { hits: 0, unchecked: 0, misses: 0, evictions: 0, bytes: 0 };

  constructor(readonly maxBytes: number = DEFAULT_OBJECT_CACHE_BYTES) {}

  /**
   * The object inflated, from the cache when the store still holds the same bytes. Undefined
   * when it cannot be held whole (over `limit` compressed or inflated) or does not inflate
   * (corrupt): the caller reads it the uncached way, which reports such objects as before.
   * Throws `ArchiveObjectNotFoundError` when the object is gone. `erasureEpoch`: the epoch of
   * the object's tenant, read before this call while no erasure held the lease
   * (`selectArchiveCacheEpoch`); without it every read asks the store.
   */
  async get(
    store: ArchiveStore,
    objectKey: string,
    limit: number,
    erasureEpoch?: number,
  ): Promise<InflatedObject | undefined> {
    const held = this.entries.get(objectKey);
    if (held && erasureEpoch !== undefined && held.erasureEpoch === erasureEpoch) {
      this.stats.unchecked += 1;
      return this.use(objectKey, held);
    }
    const info = await store.head(objectKey);
    if (!info) {
      this.drop(objectKey);
      throw new ArchiveObjectNotFoundError(objectKey);
    }
    const identity = identityOf(info);
    const hit = this.entries.get(objectKey);
    if (hit && hit.identity === identity) {
      hit.erasureEpoch = erasureEpoch;
      return this.use(objectKey, hit);
    }
    this.drop(objectKey);
    this.stats.misses += 1;
    const loadKey = `${objectKey}\n${identity}`;
    const pending = this.loading.get(loadKey) ?? this.load(store, objectKey, { identity, erasureEpoch }, limit);
    this.loading.set(loadKey, pending);
    try {
      return await pending;
    } finally {
      this.loading.delete(loadKey);
    }
  }

  private use(objectKey: string, entry: Entry): InflatedObject {
    this.stats.hits += 1;
    this.entries.delete(objectKey); // to the most recent end
    this.entries.set(objectKey, entry);
    return entry.object;
  }

  /** Forgets one object (the store deleted it, or it changed). */
  drop(objectKey: string): void {
    const entry = this.entries.get(objectKey);
    if (!entry) return;
    this.entries.delete(objectKey);
    this.held -= entry.bytes;
    this.stats.bytes = this.held;
  }

  private async load(
    store: ArchiveStore,
    objectKey: string,
    checked: Pick<Entry, 'identity' | 'erasureEpoch'>,
    limit: number,
  ): Promise<InflatedObject | undefined> {
    let block: Buffer | undefined;
    try {
      block = await inflateWhole(await store.getStream(objectKey), limit);
    } catch (error) {
      if (error instanceof ArchiveObjectNotFoundError) throw error;
      if (isZlibError(error)) return undefined; // corrupt: the uncached read reports it as it always did
      throw error;
    }
    if (block === undefined) return undefined;
    const object: InflatedObject = { block, newlines: newlinesOf(block), ascii: isAscii(block) };
    this.keep(objectKey, { ...checked, object, bytes: block.length + object.newlines.byteLength });
    return object;
  }

  private keep(objectKey: string, entry: Entry): void {
    if (entry.bytes > this.maxBytes) return; // used for this read only
    this.drop(objectKey);
    this.entries.set(objectKey, entry);
    this.held += entry.bytes;
    for (const [key, old] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.entries.delete(key);
      this.held -= old.bytes;
      this.stats.evictions += 1;
    }
    this.stats.bytes = this.held;
  }
}

/** Size and ETag (or size alone, for a store that has no ETags). */
function identityOf(info: ObjectInfo): string {
  return `${info.size}/${info.etag ?? ''}`;
}

function newlinesOf(block: Buffer): Uint32Array {
  const out: number[] = [];
  for (let at = block.indexOf(NEWLINE); at !== -1; at = block.indexOf(NEWLINE, at + 1)) out.push(at);
  return Uint32Array.from(out);
}
