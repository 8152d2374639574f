import {
  candidateIdf,
  DEFAULT_RECALL_SCORE_POLICY,
  explainScore,
  lexicalMatch,
  scoreCandidate,
  type RecallScorePolicy,
} from '../../policies/recall-score.ts';
import { contentTokens } from '../../policies/text.ts';
import { formatIssues } from '../contracts/format-issues.ts';
import type { NoteScope } from '../contracts/note.ts';
import { insertMemoryUsage, type Db } from '../db/index.ts';
import type { Embedder } from '../embeddings/embedder.ts';
import { assembleContext, type Assembly, type ScoredCandidate } from './assemble.ts';
import { RecallRequest, type ParsedRecallRequest, type RecalledNote, type RecallResult } from './contract.ts';
import type { CandidateParams, CandidateRow } from './queries.ts';
import { mergeCandidates, readCandidates, type CandidateRead, type VectorPath } from './read-candidates.ts';

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
  const req = parseRequest(request);
  const policy = options.policy ?? DEFAULT_RECALL_SCORE_POLICY;
  const now = (options.now ?? (() => new Date()))();
  const at = req.asOf !== undefined ? new Date(req.asOf) : now;
  const [queryVector] = await embed(embedder, req.query);
  const read = await readCandidates(db, embedder, candidateParams(req, at, queryVector));
  const merged = mergeCandidates(read.vector, read.text);
  const scored = scoreCandidates(merged, { query: req.query, at, embedder, policy, vectorPath: read.vectorPath });
  const assembly = assembleContext(
    scored.filter((c) => c.parts.score > 0),
    { k: req.k, tokenBudget: req.tokenBudget, policy },
  );
  const notes = recalledNotes(assembly);
  const usageLogged = await logUsage(db, req, notes, now);
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
    stats: statsOf(read, merged.length, assembly, usageLogged),
  };
}

function statsOf(read: CandidateRead, candidates: number, assembly: Assembly, usageLogged: number) {
  return {
    candidates,
    vectorCandidates: read.vector.length,
    textCandidates: read.text.length,
    vectorPath: read.vectorPath,
    duplicatesFolded: assembly.duplicatesFolded,
    overBudget: assembly.overBudget,
    usageLogged,
  };
}

function parseRequest(request: RecallRequest): ParsedRecallRequest {
  const parsed = RecallRequest.safeParse(request);
  if (!parsed.success) throw new InvalidRecallRequestError(describeRequestIssues(parsed.error.issues));
  const req = parsed.data;
  if (req.asOf !== undefined && req.taskId !== undefined) {
    throw new InvalidRecallRequestError(
      'taskId: cannot be combined with asOf (point-in-time recall is an audit and is not logged as memory usage)',
    );
  }
  return req;
}

function candidateParams(req: ParsedRecallRequest, at: Date, queryVector: number[]): CandidateParams {
  return {
    tenantId: req.tenantId,
    at: at.toISOString(),
    pointInTime: req.asOf !== undefined,
    scopes: normalizeScopes(req.scope),
    queryVector,
    queryText: contentTokens(req.query).join(' '),
    limit: candidateLimit(req.k),
  };
}

interface ScoringContext {
  query: string;
  at: Date;
  embedder: Embedder;
  policy: RecallScorePolicy;
  vectorPath: VectorPath;
}

/** Each candidate's score parts under the policy, and the one-line reason a caller reads. */
function scoreCandidates(candidates: CandidateRow[], ctx: ScoringContext): ScoredCandidate[] {
  const idf = candidateIdf(
    ctx.query,
    candidates.map((c) => c.version.claim),
  );
  return candidates.map((c) => {
    const parts = scoreCandidate(
      {
        vectorSimilarity: c.distance === null ? null : 1 - c.distance,
        similarityFloor: ctx.embedder.similarityFloor ?? 0,
        lexical: lexicalMatch(ctx.query, c.version.claim, idf),
        confidence: c.version.confidence,
        importance: c.version.importance,
        kind: c.version.kind,
        lastConfirmedAt: new Date(c.version.lastConfirmedAt),
        at: ctx.at,
      },
      ctx.policy,
    );
    const vectorState = c.distance !== null ? 'compared' : ctx.vectorPath === 'none' ? 'other_model' : 'not_embedded';
    return { version: c.version, parts, why: explainScore(parts, vectorState) };
  });
}

function recalledNotes(assembly: Assembly): RecalledNote[] {
  return assembly.items.map((item, i) => ({
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
}

/** With a task id, the returned versions are logged as memory usage (idempotently); returns the rows written. */
async function logUsage(db: Db, req: ParsedRecallRequest, notes: RecalledNote[], now: Date): Promise<number> {
  if (req.taskId === undefined || notes.length === 0) return 0;
  const taskId = req.taskId;
  return insertMemoryUsage(db, {
    tenantId: req.tenantId,
    rows: notes.map((n) => ({
      taskId,
      noteId: n.noteId,
      version: n.version,
      rank: n.rank,
      score: n.score,
      at: now.toISOString(),
    })),
  });
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

/** One line naming each bad field, e.g. `k: Too big: expected number to be <=100`. */
export function describeRequestIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
): string {
  return formatIssues(issues, { root: '(body)' });
}
