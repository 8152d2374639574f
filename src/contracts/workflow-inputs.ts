import { z } from 'zod';
import { formatIssues } from './format-issues.ts';
import { IsoDateTime, TenantId } from './ids.ts';
import { Budget, RUN_TRIGGERS, RunCounts, Spent } from './run.ts';

// The input of every workflow, parsed at the starter and again at the workflow's first line.
// New fields are optional or defaulted, so recorded histories and running workflows still decode.

/** Defaults for a nightly run: bounded work, bounded changes, done well within the night. */
export const DEFAULT_BUDGET: Budget = {
  maxEpisodes: 500,
  maxLlmTokens: 200_000,
  maxNoteChanges: 200,
  deadlineSeconds: 3600,
};

/** The records a run reads: observed within these inclusive bounds (an absent bound is open). */
export const RunWindow = z.object({ from: IsoDateTime.optional(), to: IsoDateTime.optional() });

/** Where a continued run picks up (continue-as-new keeps history bounded). */
export const ResumeState = z.object({
  runId: z.string().min(1),
  nextBatch: z.number().int().min(0),
  counts: RunCounts,
  spent: Spent,
  rejectedByRule: z.record(z.string(), z.number().int().min(0)),
  startedAtMs: z.number().int(),
  /** What the run has published so far (its current details and changed-notes search attribute). */
  published: z
    .object({
      total: z.number().int().min(0),
      changes: z.array(
        z.object({
          noteId: z.string(),
          action: z.string(),
          fromVersion: z.number().int().nullable(),
          toVersion: z.number().int(),
          status: z.string(),
          /** Only in runs started before claims were kept out of histories. */
          claim: z.string().optional(),
          previousClaim: z.string().optional(),
        }),
      ),
      noteIds: z.array(z.string()),
    })
    .optional(),
});
export type ResumeState = z.infer<typeof ResumeState>;
export type PublishedChanges = NonNullable<ResumeState['published']>;

export const ConsolidateInput = z.object({
  tenantId: TenantId,
  window: RunWindow.default({}),
  budget: Budget.partial().default({}),
  trigger: z.enum(RUN_TRIGGERS),
  focus: z.object({ noteIds: z.array(z.string().min(1)).max(1000) }).optional(),
  mode: z.enum(['active', 'staged']).default('active'),
  /** Seed for the sample; the same seed over the same archive gives the same sample. */
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional(),
  /** Staged runs wait this long for approve/reject, then reject. @default 86400 */
  approvalTimeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(30 * 86400)
    .default(86400),
  /**
   * Continue-as-new after this many batches (or earlier when the server suggests it), so one
   * execution stays far below 4,096 history events (about 20 events per batch). @default 100
   */
  batchesPerExecution: z.number().int().min(1).max(150).default(100),
  /**
   * Notes commit without waiting for their vectors, and the run does not index its window's raw
   * records itself: two separate workflows embed the run's claims (note-vectors/<run id>) and
   * index the raw records (record-index/<run id>). The run waits for both this long at the end,
   * so that normally its notes and records are recallable by vector when it reports; a slow or
   * failing embedding server costs the run at most this wait, and the steps go on by
   * themselves. 0: do not wait. @default 120
   */
  vectorWaitSeconds: z
    .number()
    .int()
    .min(0)
    .max(6 * 3600)
    .default(120),
  resume: ResumeState.optional(),
});
export type ConsolidateInput = z.input<typeof ConsolidateInput>;

/** The step that embeds the claims a consolidation run committed. */
export const IndexNoteVectorsInput = z.object({ tenantId: TenantId, runId: z.string().min(1).max(500) });
export type IndexNoteVectorsInput = z.input<typeof IndexNoteVectorsInput>;

/** The step that indexes the raw records of a consolidation run's window. */
export const IndexRunRecordsInput = z.object({ tenantId: TenantId, window: RunWindow.default({}) });
export type IndexRunRecordsInput = z.input<typeof IndexRunRecordsInput>;

/** What a note rollback does: return to a version, or take the note out of recall. */
export const ROLLBACK_ACTIONS = ['rollback', 'retire', 'quarantine'] as const;
/** What becomes of the note that superseded a revived one. */
export const SUCCESSOR_CHOICES = ['retire', 'keep'] as const;

/**
 * One JSON object an operator pastes into the Temporal UI. Every field after `noteId` but the
 * reason and operator is optional, so older starters (and recorded histories) still decode:
 * - `toVersion`: the version to return to; absent → the one before the current (a version-1 note
 *   has none, so it is retired; a retired or quarantined note stays so); `0` → retire.
 * - `action`: `retire` or `quarantine` takes the note out of recall (no `toVersion` then).
 * - `successor`: when the note was superseded and comes back, what becomes of the note that
 *   superseded it: `retire` (default) or `keep` (refused if the two would contradict).
 */
export const RollbackNoteInput = z
  .object({
    tenantId: TenantId,
    noteId: z.string().min(1),
    toVersion: z.number().int().min(0).optional(),
    action: z.enum(ROLLBACK_ACTIONS).optional(),
    successor: z.enum(SUCCESSOR_CHOICES).optional(),
    reason: z.string().min(1).max(2000),
    operator: z.string().min(1).max(256),
  })
  .refine((i) => i.action === undefined || i.action === 'rollback' || !i.toVersion, {
    message: 'a version to return to and retire/quarantine exclude each other',
    path: ['toVersion'],
  })
  .refine((i) => i.action !== 'rollback' || i.toVersion !== 0, {
    message: '0 retires the note; action "rollback" needs a version from 1',
    path: ['toVersion'],
  });
export type RollbackNoteInput = z.infer<typeof RollbackNoteInput>;

export const RollbackRunInput = z.object({
  runId: z.string().min(1),
  reason: z.string().min(1).max(2000),
  operator: z.string().min(1).max(256),
});
export type RollbackRunInput = z.infer<typeof RollbackRunInput>;

/**
 * What rollbackRunWorkflow takes (and the UI sends). `tenantId` is optional: runs live per tenant
 * (row-level security), and consolidation run ids (`consolidate/<tenant>/<date>/<temporal run id>`)
 * name their tenant. When both are given they must agree, so a typo cannot roll back another tenant's run.
 */
export const RollbackRunWorkflowInput = RollbackRunInput.extend({ tenantId: TenantId.optional() });
export type RollbackRunWorkflowInput = { runId: string; reason: string; operator: string; tenantId?: string };

export const EraseSubjectInput = z.object({
  tenantId: TenantId,
  userId: z.string().min(1).max(256),
});
export type EraseSubjectInput = z.infer<typeof EraseSubjectInput>;

/**
 * An erasure request: the user id stays in the note store (erasure_requests) under a random
 * handle, so the workflow's input, its activities' inputs and its result never name the subject.
 */
export const EraseRequestInput = z.object({
  tenantId: TenantId,
  handle: z.string().regex(/^[0-9a-f]{32}$/, 'a request handle is 32 lowercase hex characters'),
});
export type EraseRequestInput = z.infer<typeof EraseRequestInput>;

/** What eraseSubjectWorkflow accepts: a request handle, or (histories recorded before handles) a user id. */
export const EraseWorkflowInput = z
  .object({
    tenantId: TenantId,
    handle: EraseRequestInput.shape.handle.optional(),
    userId: EraseSubjectInput.shape.userId.optional(),
  })
  .refine((x) => (x.handle === undefined) !== (x.userId === undefined), {
    message: 'give the request handle from `nocturne erase`',
    path: ['handle'],
  });
export type EraseWorkflowInput = z.infer<typeof EraseWorkflowInput>;

/** Where a continued rebuild picks up. */
export const ReindexResume = z.object({
  reindexId: z.string().min(1),
  model: z.string().min(1),
  dimension: z.number().int().min(1),
  total: z.number().int().min(0),
  previousModel: z.string().nullable(),
  after: z.string().nullable(),
  embedded: z.number().int().min(0),
  pages: z.number().int().min(0),
});
export type ReindexResume = z.infer<typeof ReindexResume>;

export const ReindexInput = z.object({
  tenantId: TenantId,
  /** Why (e.g. "model bge-m3 → e5"): kept in the result for the operator. */
  reason: z.string().min(1).max(2000).optional(),
  /** Claims per page (one activity each). @default 256 */
  pageSize: z.number().int().min(1).max(2000).default(256),
  /** Continue-as-new after this many pages, or earlier when the server suggests it. @default 100 */
  pagesPerExecution: z.number().int().min(1).max(500).default(100),
  resume: ReindexResume.optional(),
});
export type ReindexInput = z.input<typeof ReindexInput>;

// The two workflows that start consolidations: the nightly fan-out and the per-tenant conflict
// monitor. Their carried state is part of the input (continue-as-new passes it on).

/** Tenants started per execution before continuing as new: ~8 events each keeps a run far below 4,096. @default 200 */
export const TENANTS_PER_EXECUTION = 200;
/** Signals handled per execution before continuing as new (each is an event or two). @default 500 */
export const SIGNALS_PER_EXECUTION = 500;
/** A focused run looks at most this many note ids (the consolidate input's limit). @default 1000 */
export const MAX_FOCUS_NOTES = 1000;
/** When another consolidation of the tenant is running, try again after this long. @default 60 */
export const BUSY_RETRY_SECONDS = 60;

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD');
const Outcome = z.enum(['completed', 'partial', 'rejected', 'skipped', 'failed']);
export type TenantOutcomeKind = z.infer<typeof Outcome>;

/** What became of one tenant's consolidation started by a trigger. */
export const TenantOutcome = z.object({
  tenantId: z.string(),
  workflowId: z.string(),
  outcome: Outcome,
  runId: z.string().optional(),
  committed: z.number().optional(),
  reason: z.string().optional(),
});
export type TenantOutcome = z.infer<typeof TenantOutcome>;

export const NightlyInput = z.object({
  /** The run date in child ids; absent → the workflow's (schedule's) start day, UTC. */
  date: Day.optional(),
  /** Consolidations running at once. @default 4 */
  concurrency: z.number().int().min(1).max(64).default(4),
  /** Only tenants with archive partitions this many days back from `date`. @default 7 */
  activeDays: z.number().int().min(1).max(366).default(7),
  budget: Budget.partial().optional(),
  /** Tenants per page and per execution before continuing as new. @default 200 */
  tenantsPerExecution: z.number().int().min(1).max(1000).default(TENANTS_PER_EXECUTION),
  /** Carried across continue-as-new: tenants up to and including `after` are done. */
  carry: z
    .object({ after: z.string(), totals: z.record(Outcome, z.number().int()), results: z.array(TenantOutcome) })
    .optional(),
});
export type NightlyInput = z.input<typeof NightlyInput>;

/** One conflict an agent reports (the conflict monitor's signal). */
export const ConflictReport = z.object({
  noteIds: z.array(z.string().min(1).max(200)).min(1).max(MAX_FOCUS_NOTES),
  reason: z.string().max(2000).optional(),
});
export type ConflictReport = z.infer<typeof ConflictReport>;

export const ConflictMonitorInput = z.object({
  tenantId: TenantId,
  /** Conflicts that trigger a focused consolidation. @default 5 */
  threshold: z.number().int().min(1).max(10_000).default(5),
  /** After a focused run, no other starts for this long (conflicts still count). @default 3600 */
  cooldownSeconds: z
    .number()
    .int()
    .min(0)
    .max(30 * 86400)
    .default(3600),
  /** Continue as new after this many signals. @default 500 */
  signalsPerExecution: z.number().int().min(1).max(5000).default(SIGNALS_PER_EXECUTION),
  /** While another consolidation of the tenant runs, look again after this long. @default 60 */
  busyRetrySeconds: z.number().int().min(1).max(86400).default(BUSY_RETRY_SECONDS),
  /** Carried across continue-as-new. */
  carry: z
    .object({
      count: z.number().int().min(0),
      pendingNoteIds: z.array(z.string()),
      totalConflicts: z.number().int().min(0),
      runs: z.number().int().min(0),
      cooldownUntilMs: z.number().int().optional(),
      lastRun: z.custom<TenantOutcome>().optional(),
    })
    .optional(),
});
export type ConflictMonitorInput = z.input<typeof ConflictMonitorInput>;

/** One line naming every bad field, for a non-retryable workflow failure or a usage error. */
export function describeInputError(error: z.ZodError): string {
  return formatIssues(error.issues, { root: '(input)' });
}
