import {
  candidateIdf,
  DEFAULT_RECALL_SCORE_POLICY,
  explainScore,
  lexicalMatch,
  scoreCandidate,
  type RecallScorePolicy,
} from '../../policies/recall-score.ts';
import { contentTokens } from '../../policies/text.ts';
import type { NoteScope } from '../contracts/note.ts';
import { formatIssues } from '../contracts/format-issues.ts';
import type { Db } from '../db/db.ts';
import { insertMemoryUsage } from '../db/memory-usage.ts';
import { withTenant } from '../db/tenant.ts';
import type { Embedder } from '../embeddings/embedder.ts';
import { assembleContext, type ScoredCandidate } from './assemble.ts';
import { RecallRequest, type RecallResult } from './contract.ts';
import {
  selectProjectionModel,
  selectTextCandidates,
  selectVectorCandidates,
  setIndexScanSettings,
  type CandidateParams,
  type CandidateRow,
} from './queries.ts';

export interface RecallOptions {
  /** @default DEFAULT_RECALL_SCORE_POLICY */
  policy?: RecallScorePolicy;
  /** @default () => new Date() */
  now?: () => Date;
}

export class InvalidRecallRequestError extends Error {
  override name = 'InvalidRecallRequestError';
}

/** Rows read per channel (vector, text) before scoring: enough headroom for dedupe, the budget and re-ranking. */
export function candidateLimit(k: number): number {
  return Math.min(400, Math.max(50, 4 * k));
}

/**
 * Hybrid recall over a tenant's active, valid notes (or, with `asOf`, over what was active
 * then): top-N by vector similarity plus top-N by full text, scored by the named policy,
 * deduplicated and fitted to the token budget. Every read runs inside withTenant, so row-level
 * security scopes it to the tenant even if a predicate were missing. With `taskId`, the
 * returned versions are logged in memory usage (idempotently).
 */
export async function recall(
  db: Db,
  embedder: Embedder,
  request: RecallRequest,
  options: RecallOptions = {},
): Promise<RecallResult> {
  const parsed = RecallRequest.safeParse(request);
  if (!parsed.success) throw new InvalidRecallRequestError(describeRequestIssues(parsed.error.issues));
  const req = parsed.data;
  if (req.asOf !== undefined && req.taskId !== undefined) {
    throw new InvalidRecallRequestError(
      'taskId: cannot be combined with asOf (point-in-time recall is an audit and is not logged as memory usage)',
    );
  }
  const policy = options.policy ?? DEFAULT_RECALL_SCORE_POLICY;
  const now = (options.now ?? (() => new Date()))();
  const at = req.asOf !== undefined ? new Date(req.asOf) : now;
  const [queryVector] = await embed(embedder, req.query);
  const limit = candidateLimit(req.k);
  const p: CandidateParams = {
    tenantId: req.tenantId,
    at: at.toISOString(),
    pointInTime: req.asOf !== undefined,
    scopes: normalizeScopes(req.scope),
    queryVector,
    queryText: contentTokens(req.query).join(' '),
    limit,
  };
  const read = await withTenant(db, req.tenantId, async (tx) => {
    const text = await selectTextCandidates(tx, p);
    const model = await selectProjectionModel(tx, req.tenantId);
    if (model !== null && model !== embedder.name) {
      // Vectors of another model are not comparable with this query's: full text only until a reindex switches.
      return {
        vector: [],
        text: text.map((r) => ({ ...r, distance: null })),
        vectorPath: 'none' as const,
        warning: `vector similarity skipped: this tenant's notes are embedded by ${model}, the query by ${embedder.name} (reindex to switch)`,
      };
    }
    await setIndexScanSettings(tx, limit);
    let vector = await selectVectorCandidates(tx, p, false);
    let vectorPath: 'hnsw' | 'exact' = 'hnsw';
    // Fewer rows than asked means the index scan gave up (hnsw.max_scan_tuples) or the tenant
    // has fewer eligible notes: an exact scan tells the two apart and never misses a row.
    if (vector.length < limit) {
      vector = await selectVectorCandidates(tx, p, true);
      vectorPath = 'exact';
    }
    return { vector, text, vectorPath, warning: undefined };
  });

  const merged = mergeCandidates(read.vector, read.text);
  const idf = candidateIdf(
    req.query,
    merged.map((c) => c.version.claim),
  );
  const scored: ScoredCandidate[] = merged.map((c) => {
    const parts = scoreCandidate(
      {
        vectorSimilarity: c.distance === null ? null : 1 - c.distance,
        similarityFloor: embedder.similarityFloor ?? 0,
        lexical: lexicalMatch(req.query, c.version.claim, idf),
        confidence: c.version.confidence,
        importance: c.version.importance,
        kind: c.version.kind,
        lastConfirmedAt: new Date(c.version.lastConfirmedAt),
        at,
      },
      policy,
    );
    const vectorState = c.distance !== null ? 'compared' : read.vectorPath === 'none' ? 'other_model' : 'not_embedded';
    return { version: c.version, parts, why: explainScore(parts, vectorState) };
  });
  const assembly = assembleContext(
    scored.filter((c) => c.parts.score > 0),
    { k: req.k, tokenBudget: req.tokenBudget, policy },
  );
  const notes = assembly.items.map((item, i) => ({
    rank: i + 1,
    noteId: item.version.noteId,
    version: item.version.version,
    claim: item.version.claim,
    kind: item.version.kind,
    scope: item.version.scope,
    evidence: item.version.evidence,
    confidence: item.version.confidence,
    score: item.parts.score,
    parts: item.parts,
    why: item.why,
    tokens: item.tokens,
    duplicates: item.duplicates,
  }));
  const usageLogged =
    req.taskId !== undefined && notes.length > 0
      ? await insertMemoryUsage(db, {
          tenantId: req.tenantId,
          rows: notes.map((n) => ({
            taskId: req.taskId as string,
            noteId: n.noteId,
            version: n.version,
            rank: n.rank,
            score: n.score,
            at: now.toISOString(),
          })),
        })
      : 0;
  return {
    tenantId: req.tenantId,
    query: req.query,
    at: at.toISOString(),
    asOf: req.asOf ?? null,
    embedder: embedder.name,
    policy: policy.name,
    notes,
    warnings: read.warning === undefined ? [] : [read.warning],
    tokens: assembly.tokens,
    tokenBudget: req.tokenBudget ?? null,
    stats: {
      candidates: merged.length,
      vectorCandidates: read.vector.length,
      textCandidates: read.text.length,
      vectorPath: read.vectorPath,
      duplicatesFolded: assembly.duplicatesFolded,
      overBudget: assembly.overBudget,
      usageLogged,
    },
  };
}

async function embed(embedder: Embedder, query: string): Promise<[number[]]> {
  // Asymmetric models (e5, BGE) embed a search query differently from the stored passages.
  const vectors = await embedder.embed([query], { kind: 'query' });
  const v = vectors[0];
  if (vectors.length !== 1 || v === undefined || v.length !== embedder.dimension) {
    throw new Error(
      `${embedder.name} returned ${vectors.length} vector(s) of dimension ${v?.length ?? 0} for one query, expected dimension ${embedder.dimension}`,
    );
  }
  return [v];
}

function normalizeScopes(scope: NoteScope | NoteScope[] | undefined): NoteScope[] | undefined {
  if (scope === undefined) return undefined;
  return Array.isArray(scope) ? scope : [scope];
}

/** Union of the two channels by (note, version); both carry distance and rank, so either copy will do. */
function mergeCandidates(a: CandidateRow[], b: CandidateRow[]): CandidateRow[] {
  const byKey = new Map<string, CandidateRow>();
  for (const row of [...a, ...b]) byKey.set(`${row.version.noteId}\u0000${row.version.version}`, row);
  return [...byKey.values()];
}

/** One line naming each bad field, e.g. `k: Too big: expected number to be <=100`. */
export function describeRequestIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
): string {
  return formatIssues(issues, { root: '(body)' });
}
