import { readdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArchiveKeyError, ArchiveObjectNotFoundError } from '../../../src/archive/errors.ts';
import type { FileArchiveStore } from '../../../src/archive/file-store.ts';
import { openArchive } from '../../../src/archive/open.ts';
import { S3ArchiveStore } from '../../../src/archive/s3-store.ts';
import { tempStore } from './fixtures.ts';

describe('FileArchiveStore', () => {
  let store: FileArchiveStore;
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, root, cleanup } = await tempStore()));
  afterEach(() => cleanup());

  it('puts once and never replaces existing bytes', async () => {
    expect(await store.putIfAbsent('raw/a/b.txt', Buffer.from('first'), 'text/plain')).toBe('written');
    expect(await store.putIfAbsent('raw/a/b.txt', Buffer.from('second'), 'text/plain')).toBe('alreadyPresent');
    expect((await store.getBytes('raw/a/b.txt')).toString()).toBe('first');
  });

  it('leaves no temp files behind, even when racing writers put the same key', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.putIfAbsent('raw/x/y', Buffer.from(`v${i}`), 'text/plain')),
    );
    expect(results.filter((r) => r === 'written')).toHaveLength(1);
    expect(await readdir(`${root}/raw/x`)).toEqual(['y']);
  });

  it('reads ranges, streams, heads and lists by prefix in key order', async () => {
    await store.putIfAbsent('raw/tenant=a/2', Buffer.from('0123456789'), 'text/plain');
    await store.putIfAbsent('raw/tenant=a/1', Buffer.from('abc'), 'text/plain');
    await store.putIfAbsent('raw/tenant=ab/1', Buffer.from('z'), 'text/plain');
    expect((await store.getBytes('raw/tenant=a/2', { start: 2, end: 4 })).toString()).toBe('234');
    const chunks: Buffer[] = [];
    for await (const c of await store.getStream('raw/tenant=a/2')) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('0123456789');
    expect(await store.head('raw/tenant=a/2')).toEqual({ key: 'raw/tenant=a/2', size: 10, etag: expect.any(String) });
    expect(await store.head('raw/tenant=a/3')).toBeUndefined();
    const listed = [];
    for await (const o of store.list('raw/tenant=a/')) listed.push(o.key);
    expect(listed).toEqual(['raw/tenant=a/1', 'raw/tenant=a/2']);
    const partial = [];
    for await (const o of store.list('raw/tenant=a')) partial.push(o.key);
    expect(partial).toEqual(['raw/tenant=a/1', 'raw/tenant=a/2', 'raw/tenant=ab/1']);
  });

  it('reports a missing object with a typed error and deletes idempotently', async () => {
    await expect(store.getStream('raw/none')).rejects.toBeInstanceOf(ArchiveObjectNotFoundError);
    await expect(store.getBytes('raw/none')).rejects.toBeInstanceOf(ArchiveObjectNotFoundError);
    await store.putIfAbsent('raw/d', Buffer.from('x'), 'text/plain');
    await store.delete('raw/d');
    await store.delete('raw/d');
    expect(await store.head('raw/d')).toBeUndefined();
  });

  it('refuses keys that would escape the root', async () => {
    for (const key of ['../etc/passwd', 'raw//x', '/abs', 'raw/./x', 'raw/a b']) {
      await expect(store.putIfAbsent(key, Buffer.from('x'), 'text/plain')).rejects.toBeInstanceOf(ArchiveKeyError);
    }
  });
});

describe('openArchive', () => {
  it('chooses the implementation by URI scheme', async () => {
    expect(openArchive({ uri: 'file:///tmp/nocturne-x' }).location).toBe('file:///tmp/nocturne-x');
    const s3 = openArchive({
      uri: 's3://bucket/some/prefix',
      s3: { region: 'us-east-1', endpoint: 'http://127.0.0.1:1' },
    });
    expect(s3).toBeInstanceOf(S3ArchiveStore);
    expect(s3.location).toBe('s3://bucket/some/prefix');
    await s3.close();
    expect(() => openArchive({ uri: 'gs://bucket' })).toThrow(ArchiveKeyError);
  });
});
