/**
 * Which operations on one tenant may run at the same time: the one table of it (mirrored in
 * docs/SECURITY.md, "One operation per tenant", and checked against it by a test).
 *
 * The operations that rewrite many notes of a tenant, or all of them, share one lease per tenant
 * (`tenant_operations`, src/db/tenant-operation.ts): a consolidation from its plan to its last
 * commit, a run rollback, an erasure and a reindex. The lease has one holder, so every pair of
 * them excludes each other. Operations on one note at a time (a note rollback, a staged run's
 * approval or rejection) and the raw-record index take no lease: each is one transaction under
 * the tenant write lock with optimistic versions, so it interleaves safely with a leased
 * operation; only an erasure keeps them out (its write fence, `tenant_locks`).
 */

/** Operations that take the tenant's operation lease. */
export const LEASED_OPERATIONS = ['consolidation', 'run_rollback', 'erasure', 'reindex'] as const;
export type LeasedOperation = (typeof LEASED_OPERATIONS)[number];

/** Every operation the table speaks of. */
export const TENANT_OPERATIONS = [...LEASED_OPERATIONS, 'note_rollback', 'staged_decision', 'record_index'] as const;
export type TenantOperation = (typeof TENANT_OPERATIONS)[number];

/**
 * What happens when `starting` begins (or takes its next step) while `running` runs:
 * - `refused`: the starting one fails at once with TenantBusy naming the holder (the lease);
 * - `waits`: the starting one retries for about a minute, then fails with TenantLocked (the lease; one erasure after another);
 * - `fenced`: its writes fail with TenantLocked, and the raw-record index leaves what it read for later (the erasure's write fence);
 * - `overlaps`: both go on; each write is one transaction under the tenant write lock with the expected version of every note.
 */
export type Coexistence = 'refused' | 'waits' | 'fenced' | 'overlaps';

const leased = (op: TenantOperation): op is LeasedOperation => (LEASED_OPERATIONS as readonly string[]).includes(op);

/** The rule for `starting` while `running` runs (or holds the lease). */
export function coexistence(running: TenantOperation, starting: TenantOperation): Coexistence {
  if (leased(running) && leased(starting)) return running === 'erasure' && starting === 'erasure' ? 'waits' : 'refused';
  if (running === 'erasure') return 'fenced';
  return 'overlaps';
}

/** Why each pair is ruled as it is, for the documentation's table and for failure messages. */
export const REASONS: Record<Coexistence, string> = {
  refused:
    'both rewrite many notes of the tenant: a run rollback or a reindex beside a run would restore or re-embed a set the run is still changing, and an erasure beside one would let it commit what the erasure removes',
  waits: 'two erasures of one tenant run one after the other; the second waits through its retries',
  fenced: 'an erasure may take as long as a scan of the archive; writers fail at once and run again after it',
  overlaps:
    'one note per change, under the tenant write lock with optimistic versions: a commit that meets it re-plans its batch once',
};

/** Whether a holder of kind `held` keeps `wanted` from taking the lease (a renewal by the same holder always succeeds). */
export function leaseRefuses(held: LeasedOperation, wanted: LeasedOperation): boolean {
  return coexistence(held, wanted) !== 'overlaps';
}
