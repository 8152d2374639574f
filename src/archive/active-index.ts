import { TenantId } from '../contracts/ids.ts';
import { parsePartitionKey, RAW_PREFIX } from './keys.ts';
import type { ArchiveStore } from './store.ts';

/**
 * The active-tenants index: one small object per UTC day and tenant,
 *   index/active/date=<YYYY-MM-DD>/tenant=<t>
 * written (put-if-absent, so idempotent) by the writer before the first object of that tenant
 * and day. The nightly run lists the days it covers instead of the whole archive. The index
 * holds no record content: tenant ids and dates only, so erasure leaves it alone.
 * `COVERAGE_KEY` says the index covers the whole archive: written after a rebuild has marked
 * every partition written before the index existed.
 */
export const ACTIVE_PREFIX = 'index/active/';
export const COVERAGE_KEY = 'index/active-tenants.json';

const ACTIVE_KEY = /^index\/active\/date=(\d{4}-\d{2}-\d{2})\/tenant=([^/]+)$/;

export function activeKey(date: string, tenantId: string): string {
  return `${ACTIVE_PREFIX}date=${date}/tenant=${tenantId}`;
}

export function parseActiveKey(key: string): { date: string; tenantId: string } | undefined {
  const m = ACTIVE_KEY.exec(key);
  if (!m) return undefined;
  const [, date = '', tenantId = ''] = m;
  return { date, tenantId };
}

/** Markers this process has seen stored, per store: a writer puts each one once, not once per batch. */
const known = new WeakMap<ArchiveStore, Set<string>>();

/** Marks the tenant active on the day (idempotent; one request per tenant and day per process). */
export async function markActive(store: ArchiveStore, tenantId: string, date: string): Promise<void> {
  const key = activeKey(date, tenantId);
  const seen = known.get(store) ?? new Set<string>();
  known.set(store, seen);
  if (seen.has(key)) return;
  await store.putIfAbsent(key, Buffer.from(JSON.stringify({ tenantId, date })), 'application/json');
  seen.add(key);
}

export interface RebuildResult {
  /** Tenant-day partitions found in the archive (each has its marker now). */
  partitions: number;
  tenants: number;
}

/**
 * Lists the whole archive once and marks every tenant-day partition it finds, then writes the
 * coverage marker: for archives written before the index existed. Safe to run again, and
 * while writers run (they mark their own days).
 */
export async function rebuildActiveIndex(
  store: ArchiveStore,
  onProgress: (details: { seen: number }) => void = () => {},
): Promise<RebuildResult> {
  const partitions = new Map<string, { tenantId: string; date: string }>();
  let seen = 0;
  for await (const info of store.list(RAW_PREFIX)) {
    if (++seen % 1000 === 0) onProgress({ seen });
    const partition = parsePartitionKey(info.key);
    if (!partition || !TenantId.safeParse(partition.tenantId).success) continue;
    partitions.set(`${partition.tenantId}/${partition.date}`, partition);
  }
  for (const { tenantId, date } of partitions.values()) await markActive(store, tenantId, date);
  const tenants = new Set([...partitions.values()].map((p) => p.tenantId)).size;
  const coverage = { builtAt: new Date().toISOString(), partitions: partitions.size, tenants };
  await store.putIfAbsent(COVERAGE_KEY, Buffer.from(JSON.stringify(coverage)), 'application/json');
  return { partitions: partitions.size, tenants };
}
