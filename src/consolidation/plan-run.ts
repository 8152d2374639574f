import { publishAuditHead } from '../audit/anchor.ts';
import { FailureType } from '../contracts/failure-types.ts';
import { samplingWeight, weightedSample } from '../../policies/sampling.ts';
import type { Budget, RunCounts, Spent } from '../contracts/run.ts';
import {
  getNote,
  getRun,
  insertRun,
  insertRunEpisodes,
  lockRunAgainstErasure,
  selectPlanSummary,
  updateRun,
  withTenant,
  type PlannedEpisodeRow,
} from '../db/index.ts';
import { listCandidates, type EpisodeCandidate } from '../episodes/candidates.ts';
import { nowOf, PermanentFailure, type Ports } from '../ports.ts';

/**
 * Episodes per batch, from the run's change budget: one replay and one commit transaction each.
 * Larger batches spread a batch's fixed cost (two activities, their workflow tasks, a commit's
 * locks and audit head) over more work; smaller ones stop closer to the change budget, because a
 * run stops before a batch whose changes would exceed it. A batch plans about one change per
 * episode or more (1.3 on the demo sample), so batches of a quarter of the budget leave at most
 * about a third of it unused, as 50 episodes do for the default of 200 changes.
 */
export function episodesPerBatch(budget: Pick<Budget, 'maxNoteChanges'>): number {
  return Math.min(MAX_EPISODES_PER_BATCH, Math.max(MIN_EPISODES_PER_BATCH, Math.floor(budget.maxNoteChanges / 4)));
}
/** @default 50 */
export const MIN_EPISODES_PER_BATCH = 50;
/** A batch's replay and commit stay well within their activity timeouts (10 minutes, 30 seconds). @default 200 */
export const MAX_EPISODES_PER_BATCH = 200;
/** Episodes that a focused run's notes cite weigh this much more. @default 10 */
export const FOCUS_BOOST = 10;
/** A run's result lists at most this many changed versions; the run row has them all. @default 200 */
export const MAX_LISTED_CHANGES = 200;

export interface PlanRunInput {
  runId: string;
  workflowId: string;
  tenantId: string;
  window: { from?: string | undefined; to?: string | undefined };
  budget: Budget;
  trigger: 'schedule' | 'conflict' | 'manual' | 'backfill';
  mode: 'active' | 'staged';
  seed: number;
  /** The workflow's clock at planning time: recency weights use it, so a replay plans the same. */
  now: string;
  focus?: { noteIds: string[] };
}

export interface PlanRunResult {
  candidates: number;
  sampled: number;
  batches: number;
}

export interface FinishRunInput {
  runId: string;
  tenantId: string;
  status: 'completed' | 'partial' | 'rejected' | 'failed';
  counts: RunCounts;
  spent: Spent;
  rejectedByRule: Record<string, number>;
  leftover: { batches: number; reason?: string };
}

/** Records the run and stores its budgeted, importance-weighted sample of episodes. Idempotent. */
export async function planRun(ports: Pick<Ports, 'db' | 'archive'>, input: PlanRunInput): Promise<PlanRunResult> {
  const { db } = ports;
  const zero = { sampled: 0, replayed: 0, proposed: 0, rejected: 0, committed: 0, quarantined: 0 };
  await insertRun(db, {
    runId: input.runId,
    workflowId: input.workflowId,
    tenantId: input.tenantId,
    trigger: input.trigger,
    budget: input.budget,
    spent: { episodes: 0, llmTokens: 0, noteChanges: 0, seconds: 0 },
    status: 'running',
    counts: zero,
    startedAt: input.now,
  });
  const existing = await withTenant(db, input.tenantId, (tx) => selectPlanSummary(tx, { runId: input.runId }));
  if (existing.sampled > 0) return { candidates: existing.sampled, ...existing };
  const candidates = await listCandidates(ports.archive, input.tenantId, input.window);
  const rows = await sampleEpisodes(ports, input, candidates);
  if (rows.length > 0) {
    await withTenant(db, input.tenantId, async (tx) => {
      // Episode keys hold session and task ids, which may name a user an erasure removes meanwhile.
      await lockRunAgainstErasure(tx, { tenantId: input.tenantId, runId: input.runId });
      await insertRunEpisodes(tx, { tenantId: input.tenantId, runId: input.runId, episodes: rows });
    });
  }
  return {
    candidates: candidates.length,
    sampled: rows.length,
    batches: Math.ceil(rows.length / episodesPerBatch(input.budget)),
  };
}

/** The seeded, weighted sample in batch order: the same input plans the same episodes. */
async function sampleEpisodes(
  ports: Pick<Ports, 'db'>,
  input: PlanRunInput,
  candidates: EpisodeCandidate[],
): Promise<PlannedEpisodeRow[]> {
  const focused = await focusedKeys(ports, input, candidates);
  const now = new Date(input.now);
  const weight = (c: EpisodeCandidate) => samplingWeight(c.signals, now) * (focused.has(c.key) ? FOCUS_BOOST : 1);
  const sample = weightedSample(candidates, weight, input.budget.maxEpisodes, input.seed);
  const perBatch = episodesPerBatch(input.budget);
  return sample.map((c, seq) => ({
    seq,
    batchNo: Math.floor(seq / perBatch),
    key: c.key,
    parts: c.parts,
    weight: weight(c),
  }));
}

/** Episodes holding records that the focused notes cite as evidence. */
async function focusedKeys(
  ports: Pick<Ports, 'db'>,
  input: PlanRunInput,
  candidates: EpisodeCandidate[],
): Promise<Set<string>> {
  if (!input.focus?.noteIds.length) return new Set();
  const places = new Set<string>();
  for (const noteId of input.focus.noteIds) {
    const note = await getNote(ports.db, { tenantId: input.tenantId, noteId });
    for (const ref of note?.evidence ?? []) places.add(`${ref.objectKey}#${ref.line}`);
  }
  return new Set(
    candidates
      .filter((c) => c.parts.some((p) => p.lines.some((l) => places.has(`${p.objectKey}#${l}`))))
      .map((c) => c.key),
  );
}

/**
 * Writes the run's outcome, publishes the tenant's audit chain head to the archive (write-once,
 * src/audit/anchor.ts) and returns the note versions it changed (what an operator reads).
 */
export async function finishRun(ports: Pick<Ports, 'db' | 'clock' | 'archive'>, input: FinishRunInput) {
  const ok = await updateRun(ports.db, {
    tenantId: input.tenantId,
    runId: input.runId,
    status: input.status,
    counts: input.counts,
    spent: input.spent,
    finishedAt: nowOf(ports).toISOString(),
  });
  if (!ok) throw new PermanentFailure(`run ${input.runId} not found`, FailureType.RunNotFound);
  await publishAuditHead(ports, input.tenantId);
  const run = await getRun(ports.db, { tenantId: input.tenantId, runId: input.runId });
  const changed = run?.changedVersions ?? [];
  return {
    changedVersions: changed.slice(0, MAX_LISTED_CHANGES),
    changedVersionsTruncated: changed.length > MAX_LISTED_CHANGES,
  };
}
