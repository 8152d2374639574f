/**
 * Stable `ApplicationFailure` type names. Retry policies, callers and operators match on them, so
 * a name never changes once raised; a new permanent fault gets a new name here.
 */
export const FailureType = {
  /** A workflow's input failed its schema or a cross-field rule; nothing ran. */
  InvalidWorkflowInput: 'InvalidWorkflowInput',
  /** The erasure's final scan still found the subject; the working set is kept for a re-run. */
  ErasureIncomplete: 'ErasureIncomplete',
  /** An activity's input failed its schema (a ZodError, which would otherwise retry forever). */
  InvalidActivityInput: 'InvalidActivityInput',
  /** A note changed since the batch was planned: retrying the same batch cannot succeed. */
  NoteVersionConflict: 'NoteVersionConflict',
  /** The embedding server answered vectors that cannot be used (it will do so again). */
  EmbeddingError: 'EmbeddingError',
  EmbeddingDimensionError: 'EmbeddingDimensionError',
  EmbeddingDimensionMismatch: 'EmbeddingDimensionMismatch',
  EmbeddingInvalid: 'EmbeddingInvalid',
  EmbeddingModelChanged: 'EmbeddingModelChanged',
  ReindexSuperseded: 'ReindexSuperseded',
  /** A manifest in the archive is unreadable or names another object. */
  ArchiveManifestInvalid: 'ArchiveManifestInvalid',
  RunNotFound: 'RunNotFound',
  NoteNotFound: 'NoteNotFound',
  NoteErased: 'NoteErased',
  InvalidRollbackTarget: 'InvalidRollbackTarget',
  /** A rollback would leave two active notes contradicting each other in one slot (e.g. `successor: keep`). */
  RollbackWouldContradict: 'RollbackWouldContradict',
  ErasureOrder: 'ErasureOrder',
  /** An erasure holds the tenant's lease: commits, approvals, rollbacks and reindex writes fail until it ends. */
  TenantLocked: 'TenantLocked',
  /**
   * Another consolidation, run rollback, erasure or reindex of the tenant holds its operation
   * lease (policies/tenant-operations.ts): this one did nothing; the message names the holder.
   */
  TenantBusy: 'TenantBusy',
  /** A run overlapped an erasure of its tenant: it commits and approves nothing (what it sampled may be erased). */
  RunFencedByErasure: 'RunFencedByErasure',
  /** An erasure's request handle is unknown or its retention expired. */
  ErasureRequestNotFound: 'ErasureRequestNotFound',
  /** The archive already holds another chain head at this seq: the chain was rewritten since. */
  AuditHeadConflict: 'AuditHeadConflict',
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];
