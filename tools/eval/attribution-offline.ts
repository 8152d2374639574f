import { createHash } from 'node:crypto';
import { attributeEpisode } from '../../policies/attribution.ts';
import { validateProposal, type ResolvedRecord } from '../../policies/validation.ts';
import type { ArchivedRecord, Episode } from '../../src/contracts/episode.ts';
import type { NoteVersion } from '../../src/contracts/note.ts';
import { RawRecord } from '../../src/contracts/raw-record.ts';
import { createDeterministicEngine } from '../../src/engine/deterministic.ts';
import { toEpisode } from '../../src/episodes/episodes.ts';
import { defaultDatasetPath, loadDataset } from './datasets/index.ts';
import { failedRunOutcomes } from './failed-runs.ts';
import { summarizeFailedRuns } from './failed-run-summary.ts';
import { caseKey } from './questions.ts';
import { toolArgs, usageError } from './tool-args.ts';
import type { EvalCase, FailedRunOutcome } from './types.ts';

/**
 * Failure attribution without the stack (Who&When, tau-bench): each case's records through the
 * same attribution, deterministic engine and validation a consolidation runs, one episode per
 * run (task) with the case's successful runs as the peers a failed one is contrasted with, the
 * accepted notes scored by the harness's own failed-run rules (failed-runs.ts,
 * failed-run-summary.ts). Reconciliation and the commit are left out (each case is a tenant of
 * its own, so there is nothing earlier to reconcile with), and so are the raw-record index and
 * its embeddings, which attribution does not read. A quick check while tuning; `nocturne eval`
 * is the measurement.
 *
 *   node --import tsx tools/eval/attribution-offline.ts [--dataset who-and-when|tau-bench] [path]
 *
 * Prints the summary of all failed runs; for Who&When also of each half: the first half of each
 * subset (by file number) and the second.
 */

const TENANT = 'offline';

function archived(evalCase: EvalCase): ArchivedRecord[] {
  return evalCase.records.map((r, i) => {
    const record = RawRecord.parse({ recordedAt: r.record.observedAt, ...r.record, tenantId: TENANT });
    return {
      record,
      ref: {
        recordId: record.id,
        objectKey: `raw/tenant=${TENANT}/${evalCase.caseId}.jsonl.gz`,
        line: i + 1,
        contentHash: createHash('sha256').update(JSON.stringify(record)).digest('hex'),
      },
    };
  });
}

/** One episode per task (a tau-bench trial, a Who&When log), as replay groups them. */
function episodesOf(records: ArchivedRecord[]): Episode[] {
  const byTask = new Map<string, ArchivedRecord[]>();
  for (const r of records) {
    const key = r.record.taskId ?? r.record.sessionId;
    byTask.set(key, [...(byTask.get(key) ?? []), r]);
  }
  return [...byTask.entries()].map(([key, rs]) => toEpisode(`${TENANT}/${key}`, rs));
}

const succeeded = (e: Episode): boolean =>
  e.records.some((r) => r.record.kind === 'task_outcome' && r.record.outcome?.status === 'success');

export async function offlineOutcomes(evalCase: EvalCase): Promise<FailedRunOutcome[]> {
  const records = archived(evalCase);
  const episodes = episodesOf(records);
  const peers = episodes.filter(succeeded);
  const { proposals } = await createDeterministicEngine().propose({
    episodes,
    findings: episodes.flatMap((e) => attributeEpisode(e, peers)),
    activeNotes: [],
    now: new Date(),
  });
  const resolved = new Map<string, ResolvedRecord>(
    records.map((r) => [r.record.id, { record: r.record, contentHash: r.ref.contentHash }]),
  );
  const notes = proposals
    .filter((p) => validateProposal(p, TENANT, resolved).verdict === 'accept')
    .map((p, i) => ({ ...p.content, noteId: `n${i}`, status: 'active' }) as unknown as NoteVersion);
  return failedRunOutcomes(evalCase, notes, new Map(evalCase.records.map((r) => [r.record.id as string, r])));
}

/** First or second half of its subset, by file number. */
function halfOf(caseId: string, cases: readonly EvalCase[]): 'first' | 'second' {
  const subset = caseId.replace(/-\d+$/, '');
  const peers = cases.filter((c) => c.caseId.startsWith(`${subset}-`));
  return peers.findIndex((c) => c.caseId === caseId) < Math.ceil(peers.length / 2) ? 'first' : 'second';
}

const DATASETS = ['who-and-when', 'tau-bench'] as const;

const USAGE = `Usage: node --import tsx tools/eval/attribution-offline.ts [--dataset who-and-when|tau-bench] [path]

Failure attribution without the stack: the deterministic engine, validation and the harness's
failed-run scoring over each case; for Who&When also each half.
  --dataset  who-and-when (default) or tau-bench
  path       the dataset (default: the shared datasets folder)`;

function parseArgs(argv: readonly string[]): { dataset: (typeof DATASETS)[number]; path?: string } {
  const { values, positionals } = toolArgs({ dataset: { type: 'string' } }, USAGE, { argv, positionals: true });
  const dataset = values.dataset ?? 'who-and-when';
  if (!DATASETS.includes(dataset as (typeof DATASETS)[number]))
    usageError(`--dataset must be one of ${DATASETS.join(', ')} (got ${dataset})`, USAGE);
  const path = positionals[0];
  return { dataset: dataset as (typeof DATASETS)[number], ...(path ? { path } : {}) };
}

async function main(): Promise<void> {
  const { dataset, path } = parseArgs(process.argv.slice(2));
  const cases = await loadDataset(dataset, path ?? defaultDatasetPath(dataset));
  const byKey = new Map(cases.map((c) => [caseKey(c.dataset, c.caseId), c]));
  const outcomes = new Map<EvalCase, FailedRunOutcome[]>();
  for (const c of cases) outcomes.set(c, await offlineOutcomes(c));
  const groups: Record<string, readonly EvalCase[]> =
    dataset === 'who-and-when'
      ? {
          all: cases,
          'first half': cases.filter((c) => halfOf(c.caseId, cases) === 'first'),
          'second half': cases.filter((c) => halfOf(c.caseId, cases) === 'second'),
        }
      : { all: cases };
  const pct = (m: { mean: number | null }) => (m.mean === null ? '—' : `${(m.mean * 100).toFixed(1)}%`);
  for (const [name, group] of Object.entries(groups)) {
    const s = summarizeFailedRuns(
      group.flatMap((c) => outcomes.get(c) ?? []),
      byKey,
    );
    if (!s) continue;
    process.stdout.write(
      `${name} (${s.runs} failed runs): explained ${pct(s.withFailureLesson)}; ` +
        `Nocturne step ${pct(s.nocturne.stepExact)}, ±1 ${pct(s.nocturne.stepWithinOne)}, agent ${pct(s.nocturne.agent)}; ` +
        `first agent step ${pct(s.firstAgentStep.stepExact)}, ±1 ${pct(s.firstAgentStep.stepWithinOne)}, agent ${pct(s.firstAgentStep.agent)}\n`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
