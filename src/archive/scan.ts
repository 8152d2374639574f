import { ArchiveManifestError, ArchiveObjectCorruptError } from './errors.ts';
import { DATA_SUFFIX, MANIFEST_SUFFIX, dataKeyForManifest, manifestKeyFor, tenantPrefix } from './keys.ts';
import type { Manifest } from './manifest.ts';
import { readManifest } from './manifest-io.ts';
import { readObject } from './reader.ts';
import type { QuarantinedLine } from './reader.ts';
import type { QuarantineReason } from './parse-line.ts';
import type { ArchiveStore } from './store.ts';

export type ScanProblemKind =
  'missing_manifest' | 'missing_object' | 'invalid_manifest' | 'corrupt_object' | 'count_mismatch';

export interface ScanProblem {
  objectKey: string;
  problem: ScanProblemKind;
  detail: string;
}

export interface TenantScan {
  tenantId: string;
  location: string;
  /** Data objects with a valid manifest. */
  objects: number;
  records: number;
  priorityRecords: number;
  bytes: { compressed: number; raw: number };
  observedAt?: { min: string; max: string };
  kinds: Record<string, number>;
  tags: Record<string, number>;
  userIds: number;
  problems: ScanProblem[];
  /** Present with `verify`: the result of reading every object through the validating reader. */
  verified?: {
    objects: number;
    records: number;
    quarantined: number;
    byReason: Partial<Record<QuarantineReason, number>>;
    /** Capped at `maxQuarantineDetails`; counts above are exact. */
    lines: QuarantinedLine[];
  };
}

export interface ScanOptions {
  /** Also read every object fully (slow; cost follows archive size). @default false */
  verify?: boolean;
  /** @default 1000 */
  maxQuarantineDetails?: number;
  /** Called after each object, e.g. for a progress line. */
  onObject?: (done: number, total: number) => void;
}

/**
 * Aggregates a tenant's manifests into counts; with `verify`, also reads each object and
 * checks it decompresses, how many lines are quarantined and why, and that its valid record
 * count matches the manifest.
 */
export async function scanTenant(
  store: ArchiveStore,
  tenantId: string,
  options: ScanOptions = {},
): Promise<TenantScan> {
  const { dataKeys, manifestKeys } = await listTenant(store, tenantId);
  const scan = emptyScan(store, tenantId);
  const users = new Set<string>();
  const expected = new Map<string, number>();
  for (const manifestKey of manifestKeys) {
    const objectKey = dataKeyForManifest(manifestKey);
    if (!dataKeys.has(objectKey))
      scan.problems.push({
        objectKey,
        problem: 'missing_object',
        detail: `manifest ${manifestKey} has no data object`,
      });
    const manifest = await loadManifest(store, objectKey, scan);
    if (!manifest) continue;
    addManifest(scan, manifest, users);
    expected.set(objectKey, manifest.recordCount);
  }
  scan.userIds = users.size;
  for (const objectKey of dataKeys) {
    if (!manifestKeys.has(manifestKeyFor(objectKey)))
      scan.problems.push({
        objectKey,
        problem: 'missing_manifest',
        detail: 'data object without manifest (re-send the batch to repair)',
      });
  }
  if (options.verify) await verifyObjects(store, [...dataKeys], expected, scan, options);
  return scan;
}

async function listTenant(
  store: ArchiveStore,
  tenantId: string,
): Promise<{ dataKeys: Set<string>; manifestKeys: Set<string> }> {
  const dataKeys = new Set<string>();
  const manifestKeys = new Set<string>();
  for await (const info of store.list(tenantPrefix(tenantId))) {
    if (info.key.endsWith(DATA_SUFFIX)) dataKeys.add(info.key);
    else if (info.key.endsWith(MANIFEST_SUFFIX)) manifestKeys.add(info.key);
  }
  return { dataKeys, manifestKeys };
}

function emptyScan(store: ArchiveStore, tenantId: string): TenantScan {
  return {
    tenantId,
    location: store.location,
    objects: 0,
    records: 0,
    priorityRecords: 0,
    bytes: { compressed: 0, raw: 0 },
    kinds: {},
    tags: {},
    userIds: 0,
    problems: [],
  };
}

async function loadManifest(store: ArchiveStore, objectKey: string, scan: TenantScan): Promise<Manifest | undefined> {
  try {
    return await readManifest(store, objectKey);
  } catch (error) {
    if (!(error instanceof ArchiveManifestError)) throw error;
    scan.problems.push({ objectKey, problem: 'invalid_manifest', detail: error.message });
    return undefined;
  }
}

function addManifest(scan: TenantScan, m: Manifest, users: Set<string>): void {
  scan.objects += 1;
  scan.records += m.recordCount;
  scan.priorityRecords += m.priority.length;
  scan.bytes.compressed += m.bytes.compressed;
  scan.bytes.raw += m.bytes.raw;
  for (const [k, n] of Object.entries(m.kinds)) scan.kinds[k] = (scan.kinds[k] ?? 0) + n;
  for (const [t, n] of Object.entries(m.tags)) scan.tags[t] = (scan.tags[t] ?? 0) + n;
  for (const u of m.userIds) users.add(u);
  const r = scan.observedAt;
  scan.observedAt = {
    min: !r || Date.parse(m.observedAt.min) < Date.parse(r.min) ? m.observedAt.min : r.min,
    max: !r || Date.parse(m.observedAt.max) > Date.parse(r.max) ? m.observedAt.max : r.max,
  };
}

async function verifyObjects(
  store: ArchiveStore,
  keys: string[],
  expected: Map<string, number>,
  scan: TenantScan,
  options: ScanOptions,
): Promise<void> {
  const limit = options.maxQuarantineDetails ?? 1000;
  const v: NonNullable<TenantScan['verified']> = { objects: 0, records: 0, quarantined: 0, byReason: {}, lines: [] };
  for (const [i, objectKey] of keys.entries()) {
    const reader = readObject(store, objectKey, {
      onQuarantine: (q) => {
        v.quarantined += 1;
        v.byReason[q.reason] = (v.byReason[q.reason] ?? 0) + 1;
        if (v.lines.length < limit) v.lines.push(q);
      },
    });
    let records = 0;
    try {
      for await (const _ of reader) records += 1;
    } catch (error) {
      if (!(error instanceof ArchiveObjectCorruptError)) throw error;
      scan.problems.push({ objectKey, problem: 'corrupt_object', detail: error.message });
      continue;
    } finally {
      options.onObject?.(i + 1, keys.length);
    }
    v.objects += 1;
    v.records += records;
    const want = expected.get(objectKey);
    if (want !== undefined && want !== records)
      scan.problems.push({
        objectKey,
        problem: 'count_mismatch',
        detail: `manifest says ${want} records, read ${records}`,
      });
  }
  scan.verified = v;
}
