/**
 * Archive error types. Each carries a stable `name` (used as the Temporal failure type by
 * activities) and a `retryable` flag so callers can map it without string matching.
 */

/** An object could not be decompressed to its end: truncated upload, bit rot, or a torn read. */
export class ArchiveObjectCorruptError extends Error {
  override name = 'ArchiveObjectCorruptError';
  /**
   * Retryable because the usual cause is transient (a read cut short, an upload still in
   * flight); a permanently corrupt object keeps failing and ends up in the retry cap.
   */
  readonly retryable = true;
  constructor(
    readonly objectKey: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`archive object ${objectKey} is corrupt: ${reason}`, options);
  }
}

/** The key does not exist. Permanent for that key, so not retryable. */
export class ArchiveObjectNotFoundError extends Error {
  override name = 'ArchiveObjectNotFoundError';
  readonly retryable = false;
  constructor(
    readonly objectKey: string,
    options?: { cause?: unknown },
  ) {
    super(`archive object ${objectKey} not found`, options);
  }
}

/** A key or URI that would escape the archive root or break the layout. A programming error. */
export class ArchiveKeyError extends Error {
  override name = 'ArchiveKeyError';
  readonly retryable = false;
}

/** A manifest that does not parse or does not match its object. Permanent until repaired. */
export class ArchiveManifestError extends Error {
  override name = 'ArchiveManifestError';
  readonly retryable = false;
  constructor(
    readonly objectKey: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`manifest ${objectKey} is invalid: ${reason}`, options);
  }
}

/** zlib stream errors carry a Z_* code (truncated input is Z_BUF_ERROR, bad data Z_DATA_ERROR). */
export function isZlibError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}
