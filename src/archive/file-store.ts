import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { ArchiveObjectNotFoundError } from './errors.ts';
import { assertValidKey } from './store.ts';
import type { ArchiveStore, ByteRange, ListOptions, ObjectInfo, PutResult } from './store.ts';

/** Temp files carry this marker so listings never show a half-written object. */
const TEMP_MARKER = '.tmp-';

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/**
 * `file://dir` archive: the embedded default. Same logical keys as S3, one file per object.
 * Writes are atomic and no-clobber: the bytes go to a synced temp file which is then
 * hard-linked to its final name — `link` fails with EEXIST instead of replacing, which gives
 * put-if-absent without a lock, and a reader never sees a partial object.
 */
export class FileArchiveStore implements ArchiveStore {
  readonly location: string;

  constructor(private readonly root: string) {
    this.location = `file://${root}`;
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    return join(this.root, ...key.split('/'));
  }

  async putIfAbsent(key: string, body: Uint8Array, _contentType: string): Promise<PutResult> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}${TEMP_MARKER}${process.pid}-${randomBytes(6).toString('hex')}`;
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(body);
      await handle.sync(); // durable before it becomes visible under its final name
    } finally {
      await handle.close();
    }
    try {
      await link(temp, target);
      return 'written';
    } catch (error) {
      if (isErrno(error, 'EEXIST')) return 'alreadyPresent';
      throw error;
    } finally {
      await unlink(temp).catch(() => undefined);
    }
  }

  async getStream(key: string): Promise<Readable> {
    const path = this.pathOf(key);
    // Open eagerly so a missing object is reported here, not as a stream error later.
    const handle = await open(path, 'r').catch((error: unknown) => {
      throw isErrno(error, 'ENOENT') ? new ArchiveObjectNotFoundError(key, { cause: error }) : error;
    });
    return handle.createReadStream({ highWaterMark: 256 * 1024 }); // closes the handle when done
  }

  async getBytes(key: string, range?: ByteRange): Promise<Buffer> {
    const path = this.pathOf(key);
    const handle = await open(path, 'r').catch((error: unknown) => {
      throw isErrno(error, 'ENOENT') ? new ArchiveObjectNotFoundError(key, { cause: error }) : error;
    });
    try {
      if (!range) return await handle.readFile();
      const length = Math.max(0, range.end - range.start + 1);
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, range.start);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    try {
      const info = await stat(this.pathOf(key), { bigint: true });
      // The file's inode and modification time stand in for S3's ETag: a file put again under the
      // same key (after a delete) is another version, even at the same size.
      return info.isFile() ? { key, size: Number(info.size), etag: `${info.ino}-${info.mtimeNs}` } : undefined;
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw error;
    }
  }

  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<ObjectInfo> {
    assertValidKey(prefix, { prefix: true });
    const after = options.startAfter ?? '';
    // Walk from the deepest directory the prefix names, then filter by the full prefix, so a
    // partial last segment (`raw/tenant=a`) matches like an S3 prefix does.
    const dirKey = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    const keys: string[] = [];
    await this.walk(join(this.root, ...dirKey.split('/').filter(Boolean)), keys);
    keys.sort();
    for (const key of keys) {
      if (!key.startsWith(prefix) || key <= after) continue;
      const info = await this.head(key);
      if (info) yield info;
    }
  }

  private async walk(dir: string, out: string[]): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return;
      throw error;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await this.walk(full, out);
      else if (entry.isFile() && !entry.name.includes(TEMP_MARKER))
        out.push(relative(this.root, full).split(sep).join('/'));
    }
  }

  async delete(key: string): Promise<void> {
    await unlink(this.pathOf(key)).catch((error: unknown) => {
      if (!isErrno(error, 'ENOENT')) throw error;
    });
  }

  async close(): Promise<void> {}
}
