import { assertValidKey } from './store.ts';

/**
 * The archive layout (docs/ARCHITECTURE.md, "Contracts"), shared by the writer, reader and scan:
 *   raw/tenant=<t>/date=<YYYY-MM-DD>/<producer>-<firstUlid>-<hash12>.jsonl.gz
 *   …and its sidecar <same stem>.manifest.json
 * `<firstUlid>-<hash12>` is the deterministic "seq": the first record's id keeps keys roughly
 * time-ordered in listings, the content hash makes a re-sent batch land on the same key.
 */

export const DATA_SUFFIX = '.jsonl.gz';
export const MANIFEST_SUFFIX = '.manifest.json';

export interface DataKeyParts {
  tenantId: string;
  date: string;
  producer: string;
  seq: string;
}

/** The root under which every tenant's partitions live. */
export const RAW_PREFIX = 'raw/';

/** Any key inside a tenant's day partition: data objects, manifests, and whatever else lands there. */
const PARTITION = /^raw\/tenant=([^/]+)\/date=(\d{4}-\d{2}-\d{2})\//;

const DATA_KEY =
  /^raw\/tenant=([^/]+)\/date=(\d{4}-\d{2}-\d{2})\/(.+)-([0-9A-HJKMNP-TV-Z]{26}-[0-9a-f]{12})\.jsonl\.gz$/;

export function tenantPrefix(tenantId: string): string {
  const prefix = `raw/tenant=${tenantId}/`;
  assertValidKey(prefix, { prefix: true });
  return prefix;
}

export function dataKey(parts: DataKeyParts): string {
  const key = `${tenantPrefix(parts.tenantId)}date=${parts.date}/${parts.producer}-${parts.seq}${DATA_SUFFIX}`;
  assertValidKey(key);
  return key;
}

export function parseDataKey(key: string): DataKeyParts | undefined {
  const m = DATA_KEY.exec(key);
  if (!m) return undefined;
  const [, tenantId = '', date = '', producer = '', seq = ''] = m;
  return { tenantId, date, producer, seq };
}

/** The tenant and UTC day of a key inside a partition; undefined for keys outside the layout. */
export function parsePartitionKey(key: string): { tenantId: string; date: string } | undefined {
  const m = PARTITION.exec(key);
  if (!m) return undefined;
  const [, tenantId = '', date = ''] = m;
  return { tenantId, date };
}

export function manifestKeyFor(objectKey: string): string {
  if (!objectKey.endsWith(DATA_SUFFIX)) throw new Error(`not a data object key: ${objectKey}`);
  return `${objectKey.slice(0, -DATA_SUFFIX.length)}${MANIFEST_SUFFIX}`;
}

export function dataKeyForManifest(manifestKey: string): string {
  if (!manifestKey.endsWith(MANIFEST_SUFFIX)) throw new Error(`not a manifest key: ${manifestKey}`);
  return `${manifestKey.slice(0, -MANIFEST_SUFFIX.length)}${DATA_SUFFIX}`;
}

/** UTC calendar date of an ISO date-time with any offset: the partition a record belongs to. */
export function utcDate(isoDateTime: string): string {
  return new Date(isoDateTime).toISOString().slice(0, 10);
}
