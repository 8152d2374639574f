import { performance } from 'node:perf_hooks';
import { listNotes } from '../../src/db/index.ts';
import type { NoteVersion } from '../../src/contracts/note.ts';
import type { RecallResult } from '../../src/recall/index.ts';
import { bm25 } from './baselines/bm25.ts';
import { dense } from './baselines/dense.ts';
import type { EmbeddingCache } from './baselines/embedding-cache.ts';
import { recentHistory } from './baselines/recent-history.ts';
import { approxTokens, turnsOf, type Turn, type TurnRetriever } from './baselines/turns.ts';
import { isAfter } from './cutoff.ts';
import { failedRunOutcomes } from './failed-runs.ts';
import type { EvalPipeline } from './pipeline.ts';
import type {
  EvalCase,
  EvalMethod,
  EvalQuery,
  EvalRecord,
  FailedRunOutcome,
  QueryOutcome,
  RetrievedItem,
} from './types.ts';

interface CaseRunOptions {
  tenantId: string;
  /** Inclusive; records after it are archived but not consolidated, and not indexed by baselines. */
  cutoff: string | undefined;
  /** Results asked of every method per question (the largest k measured). */
  depth: number;
  /** Passage embeddings of earlier runs for the dense baseline. @default none (every turn embedded) */
  embeddingCache?: EmbeddingCache;
  log: (line: string) => void;
}

interface CaseRunResult {
  outcomes: QueryOutcome[];
  failedRuns: FailedRunOutcome[];
  notes: number;
  /** Every note's current version after the run, read before the evaluation drops its schema. */
  committed: NoteVersion[];
  seconds: Record<string, number>;
}

/** One case end to end: archive, consolidate up to the cutoff, build the baselines, ask every question of every method. */
export async function runCase(
  pipeline: EvalPipeline,
  evalCase: EvalCase,
  opts: CaseRunOptions,
): Promise<CaseRunResult> {
  const seconds: Record<string, number> = {};
  const timed = async <T>(phase: string, work: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      seconds[phase] = (seconds[phase] ?? 0) + (performance.now() - t0) / 1000;
    }
  };
  const archived = await timed('archive', () =>
    pipeline.archiveRecords(
      opts.tenantId,
      evalCase.records.map((r) => r.record),
    ),
  );
  if (archived.rejected > 0) opts.log(`  ${evalCase.caseId}: the archive rejected ${archived.rejected} records`);
  const run = await timed('consolidate', () =>
    pipeline.consolidate(opts.tenantId, opts.cutoff ? { to: opts.cutoff } : {}),
  );
  opts.log(
    `  ${evalCase.caseId}: run ${run.status}: ${run.counts.replayed} records replayed, ${run.counts.committed} note changes, ${run.counts.rejected} proposals rejected, ${run.counts.quarantined} quarantined`,
  );
  const byRecordId = new Map(evalCase.records.map((r) => [r.record.id, r]));
  const notes = await currentNotes(pipeline, opts.tenantId);
  const failedRuns = failedRunOutcomes(evalCase, notes, byRecordId);
  // Failure logs carry no questions: nothing to index for the baselines.
  if (evalCase.queries.length === 0)
    return { outcomes: [], failedRuns, notes: notes.length, committed: notes, seconds };
  const known = evalCase.records.filter((r) => !isAfter(r.record.observedAt, opts.cutoff));
  const turns = turnsOf(known);
  const baselines = await timed('baselines', async () => ({
    'recent-history': recentHistory(turns),
    'full-text': bm25(turns),
    dense: await dense(turns, pipeline.embedder, opts.embeddingCache),
  }));
  const ask = new Asker(evalCase, opts, pipeline, byRecordId, turns, baselines);
  const outcomes = await timed('query', async () => {
    const out: QueryOutcome[] = [];
    for (const query of evalCase.queries) out.push(...(await ask.everyMethod(query)));
    return out;
  });
  return { outcomes, failedRuns, notes: notes.length, committed: notes, seconds };
}

class Asker {
  constructor(
    private readonly evalCase: EvalCase,
    private readonly opts: CaseRunOptions,
    private readonly pipeline: EvalPipeline,
    private readonly byRecordId: ReadonlyMap<string, EvalRecord>,
    private readonly turns: readonly Turn[],
    private readonly baselines: Record<'recent-history' | 'full-text' | 'dense', TurnRetriever>,
  ) {}

  async everyMethod(query: EvalQuery): Promise<QueryOutcome[]> {
    const out = [this.outcome(query, 'no-memory', [], 0)];
    for (const method of ['recent-history', 'full-text', 'dense'] as const) {
      const t0 = performance.now();
      const hits = await this.baselines[method].search(query.text, this.opts.depth);
      out.push(
        this.outcome(
          query,
          method,
          hits.map((h) => this.turnItem(this.turns[h.turn] as Turn, h.score)),
          performance.now() - t0,
        ),
      );
    }
    const t0 = performance.now();
    const recalled = await this.pipeline.recall(
      { tenantId: this.opts.tenantId, query: query.text, k: this.opts.depth, askedBy: query.askedBy },
      new Date(query.askedAt),
    );
    out.push(
      this.outcome(query, 'nocturne', fusedItems(recalled, this.byRecordId, this.opts.cutoff), performance.now() - t0),
    );
    return out;
  }

  private outcome(query: EvalQuery, method: EvalMethod, items: RetrievedItem[], latencyMs: number): QueryOutcome {
    // Abstention is decided once every question is answered (calibrateAbstention).
    return {
      dataset: this.evalCase.dataset,
      caseId: this.evalCase.caseId,
      queryId: query.queryId,
      method,
      items,
      latencyMs,
      abstained: items.length === 0,
    };
  }

  private turnItem(turn: Turn, score: number): RetrievedItem {
    return {
      goldIds: [turn.goldId],
      goldSessions: [turn.goldSession],
      score,
      tokens: approxTokens(turn.text),
      afterCutoff: isAfter(turn.observedAt, this.opts.cutoff),
    };
  }
}

/**
 * Nocturne's answer as the metrics read it, in the fused order: a note counts for the dataset
 * ids of the records it cites as evidence, a raw record for its own. Each item's score is its
 * relevance (a note's `parts.relevance`, a record's `relevance`): the fused score is a rank, the
 * same for every answer's first item, and abstention needs how well the answer matches.
 */
export function fusedItems(
  recalled: RecallResult,
  byRecordId: ReadonlyMap<string, EvalRecord>,
  cutoff: string | undefined,
): RetrievedItem[] {
  const cited = (recordIds: readonly string[], score: number, tokens: number): RetrievedItem => {
    const records = recordIds.map((id) => byRecordId.get(id)).filter((r): r is EvalRecord => r !== undefined);
    return {
      goldIds: unique(records.map((r) => r.goldId)),
      goldSessions: unique(records.map((r) => r.goldSession)),
      score,
      tokens,
      afterCutoff: records.some((r) => isAfter(r.record.observedAt, cutoff)),
    };
  };
  const notes = new Map(recalled.notes.map((n) => [n.noteId, n]));
  const records = new Map(recalled.records.map((r) => [r.recordId, r]));
  return recalled.ranking.flatMap((item) => {
    const note = item.type === 'note' ? notes.get(item.id) : undefined;
    if (note)
      return [
        cited(
          note.evidence.map((e) => e.recordId),
          note.parts.relevance,
          note.tokens,
        ),
      ];
    const record = item.type === 'record' ? records.get(item.id) : undefined;
    return record ? [cited([record.recordId], record.relevance, record.tokens)] : [];
  });
}

const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];

async function currentNotes(pipeline: EvalPipeline, tenantId: string): Promise<NoteVersion[]> {
  const out: NoteVersion[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await listNotes(pipeline.db, { tenantId, limit: 1000, ...(cursor ? { cursor } : {}) });
    out.push(...page.notes);
    if (!page.nextCursor) return out;
    cursor = page.nextCursor;
  }
}
