import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { ArchiveObjectNotFoundError } from './errors.ts';
import { assertValidKey } from './store.ts';
import type { ArchiveStore, ByteRange, ListOptions, ObjectInfo, PutResult } from './store.ts';

export interface S3StoreOptions {
  bucket: string;
  /** Key prefix inside the bucket, without leading or trailing `/`. @default '' */
  prefix?: string;
  /** Set for S3-compatible servers (SeaweedFS); absent means AWS. */
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
}

function statusOf(error: unknown): number | undefined {
  return error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
}

/**
 * S3 archive (AWS in production, SeaweedFS locally). Logical keys live under `prefix/`.
 */
export class S3ArchiveStore implements ArchiveStore {
  readonly location: string;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket;
    this.prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.location = `s3://${this.bucket}${this.prefix ? `/${this.prefix}` : ''}`;
    const credentials =
      options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined;
    this.client = new S3Client({
      region: options.region,
      ...(credentials ? { credentials } : {}),
      ...(options.endpoint
        ? {
            endpoint: options.endpoint,
            // Non-AWS servers: virtual-host addressing needs DNS we do not have, and the SDK's
            // default flexible checksums can store aws-chunked framing inside the object.
            forcePathStyle: true,
            requestChecksumCalculation: 'WHEN_REQUIRED' as const,
            responseChecksumValidation: 'WHEN_REQUIRED' as const,
          }
        : {}),
    });
  }

  private fullKey(key: string, { prefix = false } = {}): string {
    assertValidKey(key, { prefix });
    return this.prefix ? `${this.prefix}/${key}` : key;
  }

  private logicalKey(fullKey: string): string {
    return this.prefix ? fullKey.slice(this.prefix.length + 1) : fullKey;
  }

  async putIfAbsent(key: string, body: Uint8Array, contentType: string): Promise<PutResult> {
    if (await this.head(key)) return 'alreadyPresent';
    try {
      // The HEAD above saves an upload in the common re-send case; If-None-Match closes the race
      // between it and this PUT (AWS S3 and SeaweedFS answer 412 when the key exists).
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.fullKey(key),
          Body: body,
          ContentType: contentType,
          IfNoneMatch: '*',
        }),
      );
      return 'written';
    } catch (error) {
      if (statusOf(error) === 412) return 'alreadyPresent';
      throw error;
    }
  }

  async getStream(key: string): Promise<Readable> {
    const out = await this.get(key, {});
    if (out instanceof Readable) return out;
    throw new Error(`S3 GetObject for ${key} returned a non-stream body`);
  }

  async getBytes(key: string, range?: ByteRange): Promise<Buffer> {
    const body = await this.get(key, range ? { Range: `bytes=${range.start}-${range.end}` } : {});
    const chunks: Buffer[] = [];
    for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  private async get(key: string, extra: { Range?: string }): Promise<unknown> {
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.fullKey(key), ...extra }),
      );
      return out.Body;
    } catch (error) {
      if (statusOf(error) === 404) throw new ArchiveObjectNotFoundError(key, { cause: error });
      throw error;
    }
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.fullKey(key) }));
      return { key, size: out.ContentLength ?? 0, ...(out.ETag ? { etag: out.ETag } : {}) };
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<ObjectInfo> {
    const fullPrefix = this.fullKey(prefix, { prefix: true });
    const startAfter = options.startAfter ? { StartAfter: this.fullKey(options.startAfter) } : {};
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: fullPrefix, ContinuationToken: token, ...startAfter }),
      );
      for (const item of page.Contents ?? []) {
        if (!item.Key) continue;
        yield { key: this.logicalKey(item.Key), size: item.Size ?? 0, ...(item.ETag ? { etag: item.ETag } : {}) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.fullKey(key) }));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
