import { z } from 'zod';
import { IsoDateTime, TenantId } from './ids.ts';
import { Budget, RUN_TRIGGERS, RunCounts, Spent } from './run.ts';

/** Defaults for a nightly run: bounded work, bounded changes, done well within the night. */
export const DEFAULT_BUDGET: Budget = {
  maxEpisodes: 500,
  maxLlmTokens: 200_000,
  maxNoteChanges: 200,
  deadlineSeconds: 3600,
};

/** Where a continued run picks up (continue-as-new keeps history bounded). */
export const ResumeState = z.object({
  runId: z.string().min(1),
  nextBatch: z.number().int().min(0),
  counts: RunCounts,
  spent: Spent,
  rejectedByRule: z.record(z.string(), z.number().int().min(0)),
  startedAtMs: z.number().int(),
});
export type ResumeState = z.infer<typeof ResumeState>;

export const ConsolidateInput = z.object({
  tenantId: TenantId,
  window: z.object({ from: IsoDateTime.optional(), to: IsoDateTime.optional() }).default({}),
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
  resume: ResumeState.optional(),
});
export type ConsolidateInput = z.input<typeof ConsolidateInput>;
export type ConsolidateParams = z.output<typeof ConsolidateInput>;

export const RollbackNoteInput = z.object({
  tenantId: TenantId,
  noteId: z.string().min(1),
  toVersion: z.number().int().min(1),
  reason: z.string().min(1).max(2000),
  operator: z.string().min(1).max(256),
});
export type RollbackNoteInput = z.infer<typeof RollbackNoteInput>;

export const RollbackRunInput = z.object({
  runId: z.string().min(1),
  reason: z.string().min(1).max(2000),
  operator: z.string().min(1).max(256),
});
export type RollbackRunInput = z.infer<typeof RollbackRunInput>;

/** One line naming every bad field, for a non-retryable workflow failure. */
export function describeInputError(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
}
