import type { Readable } from 'node:stream';
import { ArchiveKeyError } from './errors.ts';

/** Size and identity of a stored object. */
export interface ObjectInfo {
  key: string;
  size: number;
  etag?: string;
}

/** Byte range, both ends inclusive (as in HTTP `Range`). */
export interface ByteRange {
  start: number;
  end: number;
}

export type PutResult = 'written' | 'alreadyPresent';

export interface ListOptions {
  startAfter?: string;
}

/**
 * The archive's object-store port. Keys are logical (`raw/tenant=…/…`); each implementation
 * maps them under its own root (an S3 prefix or a directory), so the layout is identical.
 * Objects are immutable: there is no overwrite, only put-if-absent and delete (erasure).
 */
export interface ArchiveStore {
  /** Human-readable location, e.g. `s3://bucket/prefix` or `file:///var/archive`. */
  readonly location: string;
  /** Stores `body` under `key` unless the key exists; never replaces existing bytes. */
  putIfAbsent(key: string, body: Uint8Array, contentType: string): Promise<PutResult>;
  /** Streams the object. Throws `ArchiveObjectNotFoundError` when absent. */
  getStream(key: string): Promise<Readable>;
  /** Whole object (small objects such as manifests) or an inclusive byte range. */
  getBytes(key: string, range?: ByteRange): Promise<Buffer>;
  /** Object info, or `undefined` when absent. */
  head(key: string): Promise<ObjectInfo | undefined>;
  /**
   * Every object whose key starts with `prefix`, in ascending key order; with `startAfter`,
   * only keys after it (S3's StartAfter: the listing starts there instead of filtering later).
   */
  list(prefix: string, options?: ListOptions): AsyncIterable<ObjectInfo>;
  /** Removes the object; deleting an absent key is not an error (erasure is retried). */
  delete(key: string): Promise<void>;
  /** Releases clients and sockets. */
  close(): Promise<void>;
}

const SAFE_SEGMENT = /^[A-Za-z0-9_.=-]+$/;

/**
 * Keys must stay inside the root on both back ends: no empty or dot segments (a `..` would
 * escape a file:// root) and a conservative character set so keys need no escaping.
 * A trailing `/` is allowed for list prefixes only.
 */
export function assertValidKey(key: string, { prefix = false } = {}): void {
  const body = prefix && key.endsWith('/') ? key.slice(0, -1) : key;
  if (prefix && body === '') return;
  const segments = body.split('/');
  const bad = segments.find((s) => s === '' || s === '.' || s === '..' || !SAFE_SEGMENT.test(s));
  if (bad !== undefined) throw new ArchiveKeyError(`invalid archive key ${JSON.stringify(key)}`);
}
