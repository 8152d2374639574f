import { attributeEpisode } from '../../policies/attribution.ts';
import { foldConfirmations } from '../../policies/lifecycle-chain.ts';
import { feedbackProposals } from '../../policies/lifecycle-feedback.ts';
import { successAfterRecall } from '../../policies/lifecycle-recall.ts';
import { alreadyKnown, reconcile, type KnownNote } from '../../policies/reconcile.ts';
import { redactContent, redactLeaves, redactText } from '../../policies/redaction-fields.ts';
import { recordText } from '../../policies/text.ts';
import { validateProposal, type ResolvedRecord } from '../../policies/validation.ts';
import type { Episode, Proposal } from '../contracts/episode.ts';
import {
  insertRejections,
  insertRunBatch,
  lockRunAgainstErasure,
  selectArchiveCacheEpoch,
  selectBatchEpisodes,
  selectRunBatch,
  withTenant,
} from '../db/index.ts';
import { loadEpisodes, resolveEvidence } from '../episodes/episodes.ts';
import { nowOf, SILENT, type Ports, type Progress } from '../ports.ts';
import { pendingFeedback, withFeedbackNotes } from './feedback.ts';
import { timed, timedSync } from './phase-times.ts';
import { knownNotes } from './known-notes.ts';
import { toNoteOp } from './note-ops.ts';
import { recalledByEpisode } from './recalled.ts';

export interface ReplayBatchInput {
  runId: string;
  tenantId: string;
  batchNo: number;
  /**
   * The run's window. Planning selects whole archive objects and episodes from manifests, so an
   * episode may hold records outside it; those are left out here, record by record.
   */
  window?: { from?: string | undefined; to?: string | undefined };
  llmTokensLeft: number;
  /**
   * Plan the batch again on the notes as they are now, because its commit met a note another
   * writer (a rollback) had moved: stored under its own key, so the first plan stays as it was.
   */
  replan?: boolean;
}

/** A re-planned batch is stored and committed under this offset plus its number (never a key a run uses). */
export const REPLAN_BATCH_OFFSET = 2_000_000;

/** The key a batch's operations are stored and committed under. */
export const storedBatchNo = (batchNo: number, replan: boolean | undefined): number =>
  replan ? REPLAN_BATCH_OFFSET + batchNo : batchNo;

export interface ReplayBatchResult {
  episodes: number;
  replayed: number;
  proposed: number;
  rejectedByRule: Record<string, number>;
  quarantined: number;
  plannedChanges: number;
  llmTokens: number;
  /** Archive objects planned for this batch and gone when it read them (erased or expired meanwhile). */
  objectsMissing?: number;
}

interface Rejection {
  rule: string;
  detail: string;
  /** A proposal validation rejected, or a change the engine refused (a model's raw change). */
  proposal: unknown;
}

/**
 * Replays one batch of sampled episodes: read their lines, compare & attribute, propose,
 * validate against the cited records, reconcile with current notes. Stores the operations
 * for the commit; a retry returns the stored summary instead of proposing again.
 */
export async function replayBatch(
  ports: Ports,
  input: ReplayBatchInput,
  progress: Progress = SILENT,
): Promise<ReplayBatchResult> {
  const key = { runId: input.runId, batchNo: storedBatchNo(input.batchNo, input.replan) };
  const times = ports.replayPhases;
  const stored = await timed(times, 'stored', () =>
    withTenant(ports.db, input.tenantId, (tx) => selectRunBatch(tx, key)),
  );
  if (stored) return stored.summary as ReplayBatchResult;
  const { planned, erasureEpoch } = await timed(times, 'planned', () =>
    withTenant(ports.db, input.tenantId, async (tx) => ({
      planned: await selectBatchEpisodes(tx, { runId: input.runId, batchNo: input.batchNo }),
      // Read before any object: the worker's held objects are trusted only under this epoch.
      erasureEpoch: ports.archiveCache ? await selectArchiveCacheEpoch(tx) : undefined,
    })),
  );
  const cached = { cache: ports.archiveCache, erasureEpoch };
  const { episodes, missingObjects } = await timed(times, 'archive', () =>
    loadEpisodes(ports.archive, input.tenantId, planned, {
      onObject: (objectKey) => progress.beat({ objectKey }),
      ...(input.window ? { window: input.window } : {}),
      ...cached,
    }),
  );
  const recalled = await timed(times, 'recalled', () => recalledByEpisode(ports.db, input.tenantId, episodes));
  const feedback = await timed(times, 'feedback', () => pendingFeedback(ports.db, input.tenantId, input.batchNo));
  const known = await timed(times, 'known', () =>
    knownNotes(ports.db, input.tenantId, episodes, withFeedbackNotes(recalled, feedback)),
  );
  const { proposals, llmTokens, refused } = await timed(times, 'engine', () =>
    propose(ports, input, episodes, known, progress),
  );
  const resolved = await timed(times, 'evidence', () =>
    resolveEvidence(
      ports.archive,
      proposals.flatMap((p) => p.content.evidence),
      episodes.flatMap((e) => e.records),
      cached,
    ),
  );
  const validated = timedSync(times, 'validation', () => validateAll(proposals, input.tenantId, resolved));
  const { accepted, quarantined } = validated;
  const rejections = [...refused, ...validated.rejections];
  const { ops, newQuarantines } = timedSync(times, 'reconcile', () =>
    batchOps(ports, { episodes, recalled, feedback, known, accepted, quarantined, resolved }),
  );
  const summary: ReplayBatchResult = {
    episodes: episodes.length,
    replayed: episodes.reduce((n, e) => n + e.records.length, 0),
    proposed: proposals.length,
    rejectedByRule: countBy(rejections.map((r) => r.rule)),
    quarantined: newQuarantines.length,
    plannedChanges: ops.length,
    llmTokens,
    ...(missingObjects.length > 0 ? { objectsMissing: missingObjects.length } : {}),
  };
  await timed(times, 'store', () =>
    withTenant(ports.db, input.tenantId, async (tx) => {
      // The episodes were read from the archive: an erasure that began meanwhile may remove them.
      await lockRunAgainstErasure(tx, { tenantId: input.tenantId, runId: input.runId });
      await insertRejections(tx, { tenantId: input.tenantId, ...key, rejections: rejections.map(redactRejection) });
      await insertRunBatch(tx, { tenantId: input.tenantId, ...key, ops, summary });
    }),
  );
  return summary;
}

/**
 * The batch's operations: accepted and confirmed proposals reconciled with the known notes,
 * and quarantined proposals not already known kept as new quarantined notes.
 */
function batchOps(
  ports: Pick<Ports, 'newId'>,
  b: {
    episodes: Episode[];
    recalled: Awaited<ReturnType<typeof recalledByEpisode>>;
    feedback: Awaited<ReturnType<typeof pendingFeedback>>;
    known: KnownNote[];
    accepted: Proposal[];
    quarantined: Proposal[];
    resolved: ReadonlyMap<string, ResolvedRecord>;
  },
) {
  const { episodes, recalled, feedback, known } = b;
  const confirmed = [
    ...episodes.flatMap((e) => successAfterRecall(e, recalled.get(e.key) ?? [], known)),
    ...feedbackProposals(feedback, known),
  ];
  const episodeOf = new Map(episodes.flatMap((e) => e.records.map((r) => [r.record.id, e.key] as const)));
  const reconciled = foldConfirmations(
    reconcile([...b.accepted, ...confirmed], known, () => ports.newId(), {
      evidenceText: evidenceText(b.resolved),
      episodeOf: (recordId) => episodeOf.get(recordId),
    }),
  );
  const newQuarantines = b.quarantined.filter((p) => !alreadyKnown(p, known));
  const ops = [...reconciled, ...newQuarantines.map((p) => asNewQuarantinedNote(p, ports.newId()))].map(toNoteOp);
  return { ops, newQuarantines };
}

/**
 * The engine's proposals for these episodes, as it wrote them: validation looks for injected
 * instructions in the raw text and redacts what it lets through.
 */
async function propose(
  ports: Pick<Ports, 'engine' | 'clock'>,
  input: ReplayBatchInput,
  episodes: Episode[],
  known: KnownNote[],
  progress: Progress,
): Promise<{ proposals: Proposal[]; llmTokens: number; refused: Rejection[] }> {
  const succeeded = episodes.filter((e) =>
    e.records.some((r) => r.record.kind === 'task_outcome' && r.record.outcome?.status === 'success'),
  );
  const { proposals, llmTokens, refused } = await progress.during(
    ports.engine.propose({
      episodes,
      findings: episodes.flatMap((e) => attributeEpisode(e, succeeded)),
      activeNotes: known.filter((n) => n.status === 'active'),
      now: nowOf(ports),
      tokenBudget: Math.max(0, input.llmTokensLeft),
    }),
  );
  return { proposals, llmTokens, refused: refused ?? [] };
}

/**
 * Each raw proposal checked against the records it cites: accepted or quarantined (with its
 * reason), both redacted from here on, or rejected.
 */
function validateAll(proposals: Proposal[], tenantId: string, resolved: ReadonlyMap<string, ResolvedRecord>) {
  const accepted: Proposal[] = [];
  const quarantined: Proposal[] = [];
  const rejections: Rejection[] = [];
  for (const p of proposals) {
    const v = validateProposal(p, tenantId, resolved);
    const redacted = { ...p, content: redactContent(p.content) };
    if (v.verdict === 'accept') accepted.push(redacted);
    else if (v.verdict === 'quarantine')
      quarantined.push({ ...redacted, op: 'quarantine', reason: `${v.rule}: ${v.detail}` });
    else rejections.push({ rule: v.rule, detail: v.detail, proposal: p });
  }
  return { accepted, quarantined, rejections };
}

/** The text of the records a proposal cites, as far as they resolved. */
function evidenceText(resolved: ReadonlyMap<string, ResolvedRecord>) {
  return (p: Proposal): string =>
    p.content.evidence
      .flatMap((e) => {
        const r = resolved.get(e.recordId);
        return r ? [recordText(r.record)] : [];
      })
      .join(' ');
}

/** A rejection is kept for the run's report: its rule, and its detail and proposal redacted. */
function redactRejection(r: Rejection): Rejection {
  return { rule: r.rule, detail: redactText(r.detail), proposal: redactLeaves(r.proposal) };
}

/**
 * A quarantined proposal is kept as a new note for review, whatever it proposed to change: a
 * revision of an existing note must leave that note as it is, so the copy drops the target's
 * expected version (with it, the commit would look for a version of a note that does not exist).
 */
function asNewQuarantinedNote(p: Proposal, noteId: string): Proposal {
  const { expectedVersion: _version, supersededBy: _successor, ...rest } = p;
  return { ...rest, op: 'quarantine', noteId };
}

function countBy(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
