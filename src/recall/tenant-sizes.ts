import { memoByObject } from '../../policies/memo.ts';

/**
 * Which vector read each tenant takes (exact for a small tenant or one sparse in its partition,
 * its partition's graph otherwise), as its last count said, per store. Counting a tenant's
 * projection rows (up to SPARSE_TENANT.upTo + 1 keys; up to EXACT_READ_UP_TO + 1 it already cost
 * the recall statement 10–20% of its time) is work for an answer that changes only when the
 * tenant crosses a threshold. A stale answer costs time, never a row:
 * an exact read of a tenant that has grown returns the true nearest notes, and a graph read
 * that comes back short is read again exactly (readVectorChannel) and forgets the answer.
 */
export class TenantSizes {
  private readonly paths = new Map<string, { path: 'exact' | 'hnsw'; at: number }>();

  constructor(
    /** How long a count stands before the tenant is counted again. */
    private readonly maxAgeMs = 60_000,
    /** Tenants remembered; past it the oldest answers are dropped. */
    private readonly capacity = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The read the last count chose, while it is fresh; undefined: count again. */
  pathOf(tenantId: string): 'exact' | 'hnsw' | undefined {
    const known = this.paths.get(tenantId);
    if (known === undefined || this.now() - known.at > this.maxAgeMs) return undefined;
    return known.path;
  }

  counted(tenantId: string, path: 'exact' | 'hnsw'): void {
    this.paths.delete(tenantId);
    if (this.paths.size >= this.capacity) {
      const oldest = this.paths.keys().next().value;
      if (oldest !== undefined) this.paths.delete(oldest);
    }
    this.paths.set(tenantId, { path, at: this.now() });
  }

  forget(tenantId: string): void {
    this.paths.delete(tenantId);
  }
}

/** The store's TenantSizes (one per opened store: a tenant id names another tenant in another store). */
export const tenantSizesOf: (store: object) => TenantSizes = memoByObject(() => new TenantSizes());
