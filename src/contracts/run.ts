import { z } from 'zod';
import { IsoDateTime, TenantId } from './ids.ts';

export const RUN_TRIGGERS = ['schedule', 'conflict', 'manual', 'backfill'] as const;
export const RUN_STATUSES = [
  'running',
  'completed',
  'partial',
  'failed',
  'awaiting_approval',
  'rejected',
  'rolled_back',
] as const;

export const Budget = z.object({
  maxEpisodes: z.number().int().min(0),
  maxLlmTokens: z.number().int().min(0),
  maxNoteChanges: z.number().int().min(0),
  deadlineSeconds: z.number().int().min(1),
});
export type Budget = z.infer<typeof Budget>;

export const Spent = z.object({
  episodes: z.number().int().min(0),
  llmTokens: z.number().int().min(0),
  noteChanges: z.number().int().min(0),
  seconds: z.number().min(0),
});
export type Spent = z.infer<typeof Spent>;

export const RunCounts = z.object({
  sampled: z.number().int().min(0),
  replayed: z.number().int().min(0),
  proposed: z.number().int().min(0),
  rejected: z.number().int().min(0),
  committed: z.number().int().min(0),
  quarantined: z.number().int().min(0),
});
export type RunCounts = z.infer<typeof RunCounts>;

export const ChangedVersion = z.object({
  noteId: z.string(),
  fromVersion: z.number().int().nullable(),
  toVersion: z.number().int(),
});

export const Run = z.object({
  runId: z.string().min(1),
  workflowId: z.string().min(1),
  tenantId: TenantId,
  trigger: z.enum(RUN_TRIGGERS),
  budget: Budget,
  spent: Spent,
  status: z.enum(RUN_STATUSES),
  counts: RunCounts,
  changedVersions: z.array(ChangedVersion),
  startedAt: IsoDateTime,
  finishedAt: IsoDateTime.nullable(),
});
export type Run = z.infer<typeof Run>;
