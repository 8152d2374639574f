/**
 * Store errors with stable names: activities map them to non-retryable failures by `name`
 * (a conflict or a dimension mismatch does not heal by retrying).
 */

export class NoteVersionConflictError extends Error {
  override name = 'NoteVersionConflictError';
  constructor(
    readonly tenantId: string,
    readonly noteId: string,
    readonly expectedVersion: number,
    /** 0 when the note does not exist. */
    readonly actualVersion: number,
  ) {
    super(
      actualVersion === 0
        ? `note ${noteId} (tenant ${tenantId}): expected version ${expectedVersion} but the note does not exist`
        : `note ${noteId} (tenant ${tenantId}): expected version ${expectedVersion} but the current version is ${actualVersion} (another writer changed it)`,
    );
  }
}

export class NoteAlreadyExistsError extends Error {
  override name = 'NoteAlreadyExistsError';
  constructor(
    readonly tenantId: string,
    readonly noteId: string,
    readonly currentVersion: number,
  ) {
    super(
      `note ${noteId} (tenant ${tenantId}) already exists at version ${currentVersion}; create needs a new note id`,
    );
  }
}

export class NoteVersionNotFoundError extends Error {
  override name = 'NoteVersionNotFoundError';
  constructor(
    readonly tenantId: string,
    readonly noteId: string,
    readonly version: number,
  ) {
    super(`note ${noteId} (tenant ${tenantId}) has no version ${version}`);
  }
}

/** The same (run id, batch no) arrived with different operations: a caller bug, never a retry. */
export class BatchKeyReuseError extends Error {
  override name = 'BatchKeyReuseError';
  constructor(
    readonly tenantId: string,
    readonly runId: string,
    readonly batchNo: number,
  ) {
    super(`batch ${batchNo} of run ${runId} (tenant ${tenantId}) was already applied with different operations`);
  }
}

export class EmbeddingDimensionMismatchError extends Error {
  override name = 'EmbeddingDimensionMismatchError';
  constructor(
    readonly databaseDimension: number,
    readonly configuredDimension: number,
  ) {
    super(
      `the note store holds vector(${databaseDimension}) embeddings but NOCTURNE_EMBEDDING_DIM is ${configuredDimension}: ` +
        `use a ${databaseDimension}-dimension embedding model or a new database (changing it needs a re-embedding migration)`,
    );
  }
}

/** Another writer (an erasure) holds the tenant's lease: this write would race it. */
export class TenantLockedError extends Error {
  override name = 'TenantLockedError';
  constructor(
    readonly tenantId: string,
    readonly purpose: string,
    readonly expiresAt: string,
  ) {
    super(
      `tenant ${tenantId} is locked by a running ${purpose} (lease until ${expiresAt}); nothing was written, run this again after it finishes`,
    );
  }
}

/** A run started before an erasure of its tenant ended: what it sampled may include erased records. */
export class RunFencedError extends Error {
  override name = 'RunFencedError';
  constructor(
    readonly tenantId: string,
    readonly runId: string,
  ) {
    super(
      `run ${runId} (tenant ${tenantId}) started before an erasure of this tenant finished: it may hold erased data, so it commits and approves nothing; reject it and run consolidation again`,
    );
  }
}

/**
 * Another operation of the tenant (a consolidation, run rollback, erasure or reindex) holds its
 * operation lease: this one would interleave with it (policies/tenant-operations.ts).
 */
export class TenantBusyError extends Error {
  override name = 'TenantBusyError';
  constructor(
    readonly tenantId: string,
    /** The holder's kind and workflow id. */
    readonly heldBy: { kind: string; holder: string; expiresAt: string },
    readonly wanted: string,
  ) {
    super(
      `tenant ${tenantId} is busy: ${label(heldBy.kind)} ${heldBy.holder} holds its operation lease (until ${heldBy.expiresAt} unless renewed); ` +
        `this ${label(wanted)} did nothing, start it again after that one ends`,
    );
  }
}

const label = (kind: string) => kind.replace('_', ' ');
