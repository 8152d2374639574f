import { TenantId } from '../contracts/ids.ts';
import { ACTIVE_PREFIX, COVERAGE_KEY, parseActiveKey, rebuildActiveIndex } from './active-index.ts';
import type { ArchiveStore } from './store.ts';

export interface ListActiveTenantsInput {
  /** Only tenants with an archive partition dated on or after this UTC day (YYYY-MM-DD). */
  since?: string;
  /** Tenants sort by id; the page starts after this one (the cursor a continued nightly run carries). */
  after?: string;
  /** At most this many tenants per page. */
  limit: number;
}

export interface ListActiveTenantsResult {
  tenants: string[];
  /** More active tenants follow the last one in this page. */
  more: boolean;
}

/** Keys listed between two progress reports. @default 1000 */
export const LIST_PROGRESS_EVERY = 1000;

/**
 * Distinct tenants with archive partitions (dated on or after `since`), sorted, one page.
 * Active tenants come from the archive, not the note store: raw records are the source of
 * truth, a consolidation only has work where records exist, and the note tables are behind
 * forced row-level security (an unscoped read sees no tenant at all, by design).
 *
 * They are read from the active-tenants index (src/archive/active-index.ts), listing only the
 * days from `since` on: the cost follows tenants × days in the window, not the archive's size.
 * An archive without the index's coverage marker (written before the index existed) is listed
 * once to build it.
 */
export async function listActiveTenants(
  archive: ArchiveStore,
  input: ListActiveTenantsInput,
  onProgress: (details: { seen: number }) => void = () => {},
): Promise<ListActiveTenantsResult> {
  if (!(await archive.head(COVERAGE_KEY))) await rebuildActiveIndex(archive, onProgress);
  const found = new Set<string>();
  let seen = 0;
  // Keys of day `since` sort after `…date=<since>`, earlier days before it.
  const startAfter = input.since ? `${ACTIVE_PREFIX}date=${input.since}` : undefined;
  for await (const info of archive.list(ACTIVE_PREFIX, startAfter ? { startAfter } : {})) {
    if (++seen % LIST_PROGRESS_EVERY === 0) onProgress({ seen });
    const marker = parseActiveKey(info.key);
    if (!marker) continue;
    const { tenantId, date } = marker;
    if (input.since && date < input.since) continue;
    if (input.after !== undefined && tenantId <= input.after) continue;
    if (!TenantId.safeParse(tenantId).success) continue;
    found.add(tenantId);
  }
  const sorted = [...found].sort();
  return { tenants: sorted.slice(0, input.limit), more: sorted.length > input.limit };
}
