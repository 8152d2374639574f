import { Context } from '@temporalio/activity';
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import { ZodError } from 'zod';
import { foreignFailureText, ownFailureText, stackWithText } from '../policies/failure-text.ts';
import { FailureType } from '../src/contracts/failure-types.ts';
import { formatIssues } from '../src/contracts/format-issues.ts';
import { PermanentFailure, type Ports, type Progress } from '../src/ports.ts';

/** The narrow ports activities close over (the use cases' ports); `src/worker.ts` builds them, tests pass their own. */
export type ActivityDeps = Ports;

/** Heartbeats when running as an activity; a no-op when the function is called directly (CLI, tests). */
export function heartbeat(details?: unknown): void {
  if (inActivity()) Context.current().heartbeat(details);
}

/** How often {@link whileHeartbeating} heartbeats: well inside the 15 s heartbeat timeouts. @default 5000 */
export const KEEPALIVE_INTERVAL_MS = 5000;

/**
 * Heartbeats while one long call is pending (an embedding request on a slow CPU server, a model
 * writing notes): without it a call longer than the heartbeat timeout gets the attempt timed
 * out and retried while the first is still working, and the server's queue only grows.
 *
 * It stops waiting when the activity is cancelled (its workflow cancelled or terminated, the
 * worker shutting down), failing with the SDK's CancelledFailure, so the use case goes no
 * further: an indexing step stopped by an operator no longer embeds the rest of its objects, and
 * a worker asked to stop is not held until every pending call has finished. The call itself is
 * left to settle on its own; its result is dropped, and a retry redoes only what was not stored.
 */
export async function whileHeartbeating<T>(
  work: Promise<T>,
  details?: unknown,
  intervalMs = KEEPALIVE_INTERVAL_MS,
): Promise<T> {
  if (!inActivity()) return work;
  const context = Context.current();
  const timer = setInterval(() => heartbeat(details), intervalMs);
  try {
    return await Promise.race([work, context.cancelled]);
  } finally {
    clearInterval(timer);
    // A pending call's later failure has no reader once the race is lost.
    work.catch(() => undefined);
  }
}

/** A use case's progress reported as this activity's heartbeats. */
export const heartbeats: Progress = { beat: heartbeat, during: (work, details) => whileHeartbeating(work, details) };

/** The workflow id of the activity's workflow; undefined when the function is called directly (CLI, tests). */
export function activityWorkflowId(): string | undefined {
  return inActivity() ? Context.current().info.workflowExecution?.workflowId : undefined;
}

function inActivity(): boolean {
  try {
    Context.current();
    return true;
  } catch {
    return false;
  }
}

/** Errors Nocturne raises that do not heal by retrying, by name, with the failure type they become. */
const PERMANENT_BY_NAME: Record<string, string> = {
  NoteVersionConflictError: FailureType.NoteVersionConflict,
  // Waiting out an erasure inside an activity's retries would hold the run for an unknown time: fail clearly.
  TenantLockedError: FailureType.TenantLocked,
  RunFencedError: FailureType.RunFencedByErasure,
  // Another operation of the tenant holds its lease; it may run for hours (a reindex, an erasure).
  TenantBusyError: FailureType.TenantBusy,
  // A model that answers with the wrong dimension or zero vectors will do so again.
  EmbeddingError: 'EmbeddingError',
  EmbeddingDimensionError: 'EmbeddingDimensionError',
  ArchiveManifestError: FailureType.ArchiveManifestInvalid,
};

/**
 * Permanent faults become non-retryable failures with a stable type; anything else is retried
 * under the caller's preset, under its own name as before. A ZodError would otherwise retry
 * forever. What reaches Temporal is recorded in the history, so no failure carries the text of
 * a record or a claim (policies/failure-text.ts): messages are cleaned, and the original error
 * is kept as the cause only as its name, cleaned message and stack frames, never its own causes
 * (a JSON or database error there quotes what it refused).
 */
export function asActivityFailure(error: unknown): unknown {
  // Already a failure (one raised on purpose, a cancellation): Temporal's own.
  if (error instanceof TemporalFailure) return error;
  if (error instanceof ZodError) {
    const detail = formatIssues(error.issues, { root: '', limit: 3 });
    return ApplicationFailure.nonRetryable(`invalid input: ${detail}`, FailureType.InvalidActivityInput, error.issues);
  }
  if (error instanceof PermanentFailure)
    return ApplicationFailure.nonRetryable(ownFailureText(error.message), error.type);
  const e = error instanceof Error ? error : new Error(String(error));
  const type = PERMANENT_BY_NAME[e.name];
  return type === undefined ? cleaned(e) : permanentFailure(e, type);
}

/** A known error of Nocturne's as a non-retryable failure of `type`, with itself, cleaned, as the cause. */
export function permanentFailure(e: Error, type: string): ApplicationFailure {
  return ApplicationFailure.create({ message: ownFailureText(e.message), type, nonRetryable: true, cause: cleaned(e) });
}

/** A foreign error as a retryable failure of the same type, its message cleaned; SQLSTATE and names of the relation and constraint added. */
function cleaned(e: Error): ApplicationFailure {
  const type = e.constructor.name === 'Error' ? e.name : e.constructor.name;
  const message = foreignFailureText(e.message) + databaseContext(e);
  const failure = ApplicationFailure.create({ message, type });
  failure.stack = stackWithText(type, message, e.stack);
  return failure;
}

/** A PostgreSQL error's identifiers (never its values, which its message and detail quote). */
function databaseContext(e: Error): string {
  const pg = e as Error & { code?: unknown; table?: unknown; constraint?: unknown; column?: unknown };
  if (typeof pg.code !== 'string' || !/^[0-9A-Z]{5}$/.test(pg.code)) return '';
  const named = (label: string, v: unknown) => (typeof v === 'string' && v ? ` ${label} ${v}` : '');
  return ` (SQLSTATE ${pg.code}${named('table', pg.table)}${named('column', pg.column)}${named('constraint', pg.constraint)})`;
}

/** Wraps an activity so its permanent faults are classified before they reach Temporal. */
export function classified<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (error) {
      throw asActivityFailure(error);
    }
  };
}
