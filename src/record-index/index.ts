/** The raw-record index: a projection of the archive that recall searches beside the notes. */
export {
  indexRecords,
  indexArchivedObjects,
  rebuildRecordIndex,
  INDEX_CHUNK,
  type IndexRecordsInput,
  type IndexRecordsResult,
} from './index-records.ts';
export { tenantEmbedder, tenantEmbeddingCache } from './embedding-cache.ts';
