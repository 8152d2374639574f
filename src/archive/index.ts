/** The raw-record archive: port, implementations, layout, writer, reader, scan. */
export type { ArchiveStore, ObjectInfo, ByteRange, PutResult, ListOptions } from './store.ts';
export { FileArchiveStore } from './file-store.ts';
export { S3ArchiveStore } from './s3-store.ts';
export type { S3StoreOptions } from './s3-store.ts';
export { openArchive } from './open.ts';
export {
  ArchiveObjectCorruptError,
  ArchiveObjectNotFoundError,
  ArchiveKeyError,
  ArchiveManifestError,
} from './errors.ts';
export { dataKey, parseDataKey, manifestKeyFor, dataKeyForManifest, tenantPrefix, utcDate } from './keys.ts';
export { Manifest, PriorityEntry, EpisodeEntry, episodeKey, priorityLines } from './manifest.ts';
export { writeBatch, DEFAULT_MAX_OBJECT_BYTES } from './writer.ts';
export type { WriteBatchInput, WriteBatchResult, WrittenObject } from './writer.ts';
export type { Rejection } from './rejections.ts';
export { readObject, ObjectReader, DEFAULT_MAX_LINE_BYTES, DEFAULT_VERIFY_BUFFER_BYTES } from './reader.ts';
export type { ArchivedRecord, QuarantinedLine, ReadOptions, ReadStats } from './reader.ts';
export { ArchiveObjectCache, DEFAULT_OBJECT_CACHE_BYTES } from './object-cache.ts';
export type { InflatedObject, ObjectCacheStats } from './object-cache.ts';
export { QUARANTINE_REASONS, lineHash } from './parse-line.ts';
export type { QuarantineReason } from './parse-line.ts';
export { scanTenant } from './scan.ts';
export { readManifest } from './manifest-io.ts';
export type { TenantScan, ScanProblem, ScanOptions } from './scan.ts';
export { ingestJsonlFiles, IngestInputTooLargeError, DEFAULT_MAX_INPUT_BYTES } from './ingest.ts';
export { RejectionLog, REJECTION_CODES, DEFAULT_REJECTION_DETAILS } from './rejections.ts';
export type { RejectionCode, RejectionSummary } from './rejections.ts';
export type { IngestOptions, IngestResult } from './ingest.ts';
