import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import { ArchiveKeyError } from './errors.ts';
import { FileArchiveStore } from './file-store.ts';
import { S3ArchiveStore } from './s3-store.ts';
import type { ArchiveStore } from './store.ts';

/**
 * Opens the archive named by `archive.uri`: `s3://bucket/prefix` or `file://dir`.
 * `file://` accepts both `file:///abs/dir` and the relative `file://var/archive` that the
 * config default produces (resolved against the working directory).
 */
export function openArchive(archive: Pick<Config['archive'], 'uri' | 's3'>): ArchiveStore {
  const { uri } = archive;
  if (uri.startsWith('file://')) return new FileArchiveStore(fileRoot(uri));
  const s3 = /^s3:\/\/([^/]+)\/?(.*)$/.exec(uri);
  if (s3) {
    return new S3ArchiveStore({
      bucket: s3[1] ?? '',
      prefix: s3[2] ?? '',
      region: archive.s3?.region ?? 'us-east-1',
      ...(archive.s3?.endpoint ? { endpoint: archive.s3.endpoint } : {}),
      ...(archive.s3?.accessKeyId ? { accessKeyId: archive.s3.accessKeyId } : {}),
      ...(archive.s3?.secretAccessKey ? { secretAccessKey: archive.s3.secretAccessKey } : {}),
    });
  }
  throw new ArchiveKeyError(
    `unsupported archive URI ${JSON.stringify(uri)}: expected s3://bucket/prefix or file://dir`,
  );
}

function fileRoot(uri: string): string {
  if (uri.startsWith('file:///')) return fileURLToPath(uri);
  const rest = uri.slice('file://'.length);
  if (!rest) throw new ArchiveKeyError('file:// archive URI needs a directory');
  return resolve(rest);
}
