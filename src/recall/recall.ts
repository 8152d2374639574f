import {
  candidateMatches,
  DEFAULT_RECALL_SCORE_POLICY,
  isBroaderThanRequest,
  explainScore,
  approxTokens,
  scoreCandidate,
  type RecallScorePolicy,
} from '../../policies/recall-score.ts';
import { toldQuestion } from '../../policies/record-recall.ts';
import { namedTimeWindows } from '../../policies/query-time.ts';
import { contentTokens, fullTextQuery } from '../../policies/text.ts';
import { DEFAULT_FUSION_POLICY, type FusionPolicy } from '../../policies/fusion.ts';
import { formatIssues } from '../contracts/format-issues.ts';
import type { NoteScope } from '../contracts/note.ts';
import type { Db } from '../db/index.ts';
import type { Embedder } from '../embeddings/embedder.ts';
import { assembleContext, type Assembly, type ScoredCandidate } from './assemble.ts';
import { RecallRequest, type ParsedRecallRequest, type RecalledNote, type RecallResult } from './contract.ts';
import { rankingOf, selectFused, type FusedSelection, type RecordChannels } from './fuse.ts';
import type { CandidateRow, TextParams } from './queries.ts';
import {
  mergeCandidates,
  readCandidates,
  readRecordChannels,
  type CandidateRead,
  type VectorPath,
} from './read-candidates.ts';
import { asRecalledNotes, logUsage, recalledNotes, recalledRecords } from './result.ts';
import { readStandingPreferences } from './standing.ts';
import { settleConflicts, withoutDiscredited } from './settle.ts';

export interface RecallOptions {
  /** @default DEFAULT_RECALL_SCORE_POLICY */
  policy?: RecallScorePolicy;
  /** How notes and raw records are fused into one ranking. @default DEFAULT_FUSION_POLICY */
  fusion?: FusionPolicy;
  /** @default () => new Date() */
  now?: () => Date;
  /**
   * A user-bound API token's user: only notes scoped to this user or to an agent, task type or
   * the tenant, and only this user's raw records. Set by the server, never by the request.
   */
  visibleToUser?: string;
  /**
   * The caller's deadline (the API aborts it when a request outlives its own). Once aborted,
   * recall stops at its next step: no further query, no usage logged for the task, and it
   * rejects with the signal's reason.
   */
  signal?: AbortSignal;
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
 * then) and its raw-record index: notes by the named policy (vector + full text, deduplicated),
 * records by vector and by full text, the three rankings fused by reciprocal rank into at most
 * k items within the token budget. Conflicts are settled first: of two notes of one slot only the
 * better-ranked is returned, and contradicted notes of low confidence are left out
 * (policies/recall-conflicts.ts). Records a returned note cites are not repeated, and records
 * observed after the answer's instant are left out. Every read runs inside withTenant, so
 * row-level security scopes it to the tenant even if a predicate were missing. With `taskId`,
 * the returned note versions are logged in memory usage (idempotently). With `askedBy`, the query
 * is matched told in the third person as that user, the way records and notes are told.
 */
export async function recall(
  db: Db,
  embedder: Embedder,
  request: RecallRequest,
  options: RecallOptions = {},
): Promise<RecallResult> {
  const req = parseRequest(request);
  // What is matched: the query told as records and notes are, when the request says who asks.
  const question = toldQuestion(req.query, req.askedBy);
  const policy = options.policy ?? DEFAULT_RECALL_SCORE_POLICY;
  const fusion = options.fusion ?? DEFAULT_FUSION_POLICY;
  const now = (options.now ?? (() => new Date()))();
  const at = req.asOf !== undefined ? new Date(req.asOf) : now;
  const goOn = () => options.signal?.throwIfAborted();
  // The question is embedded while the statements that need no vector (full text, the tenant's
  // model, standing preferences) run; the vector channels start when it is there. Once the
  // caller's deadline passes, no statement that waits for the vector starts.
  const vector = embed(embedder, question).then(([v]) => {
    goOn();
    return v;
  });
  const params = { ...candidateParams(req, question, at), userId: options.visibleToUser };
  // The days or months the question names, read against the answer's instant (policies/query-time.ts).
  const namedTimes = fusion.namedTime ? namedTimeWindows(req.query, at, fusion.namedTime.slackDays) : [];
  const scoring = (read: CandidateRead): ScoringContext => ({
    query: question,
    at,
    embedder,
    policy,
    vectorPath: read.vectorPath,
    requestedLevels: normalizeScopes(req.scope)?.map((s) => s.level),
  });
  // The notes are ranked as soon as they are read, while the record channels may still be running.
  const rankNotes = (read: CandidateRead) => {
    const merged = withoutDiscredited(mergeCandidates(read.vector, read.text));
    const context = scoring(read);
    const scored = scoreCandidates(merged.rows, context);
    const assembly = assembleContext(
      scored.filter((c) => c.parts.score > 0),
      { k: Math.max(req.k, fusion.depth.notes), tokenBudget: undefined, policy },
    );
    return { read, context, merged, assembly, settled: settleConflicts(assembly.items) };
  };
  // Notes and records are read in transactions of their own at once: recall waits for the slower, not the sum.
  const [, { read, context, merged, assembly, settled }, records, standing] = await Promise.all([
    vector,
    (req.include.includes('notes') ? readCandidates(db, embedder, params, vector) : Promise.resolve(NO_NOTES)).then(
      rankNotes,
    ),
    req.include.includes('records')
      ? readRecordChannels(db, { ...params, model: embedder.name, limit: recordLimit(req.k, fusion) }, vector, {
          replies: fusion.replyAfterQuestion === true,
          ...(fusion.namedTime ? { atTimes: { windows: namedTimes, depth: fusion.namedTime.depth } } : {}),
        })
      : NO_RECORDS,
    req.include.includes('notes') ? readStandingPreferences(db, params, vector) : [],
  ]);
  goOn();
  const selection = selectFused(settled.items, records, {
    k: req.k,
    tokenBudget: req.tokenBudget,
    minRelevance: req.minRelevance,
    policy: fusion,
    query: question,
    similarityFloor: embedder.similarityFloor ?? 0,
    namedTimes,
  });
  const notes = recalledNotes(selection);
  const preferences = standingPreferences(standing, notes, context);
  goOn();
  const usageLogged = await logUsage(db, req, [...notes, ...preferences], now);
  return {
    tenantId: req.tenantId,
    query: req.query,
    matchedAs: question,
    at: at.toISOString(),
    asOf: req.asOf ?? null,
    embedder: embedder.name,
    policy: policy.name,
    notes,
    preferences,
    records: recalledRecords(selection),
    ranking: rankingOf(selection),
    fusion: fusion.name,
    warnings: [...(read.warning === undefined ? [] : [read.warning]), ...pendingWarning(notes)],
    tokens: selection.tokens,
    tokenBudget: req.tokenBudget ?? null,
    stats: statsOf({ read, records, merged, assembly, settled, selection, usageLogged }),
  };
}

/** The standing preferences not already among the ranked notes, most confident first (`./standing.ts`). */
function standingPreferences(
  rows: CandidateRow[],
  ranked: readonly RecalledNote[],
  ctx: ScoringContext,
): RecalledNote[] {
  const shown = new Set(ranked.map((n) => n.noteId));
  const fresh = rows.filter((r) => !shown.has(r.version.noteId));
  const items = scoreCandidates(fresh, ctx).map((c) => ({
    ...c,
    tokens: approxTokens(c.version.claim),
    duplicates: [],
  }));
  return asRecalledNotes(items);
}

/** Returned notes without a vector are named in the warnings too, for a caller that reads only those. */
function pendingWarning(notes: ReadonlyArray<{ vectorPending?: boolean | undefined }>): string[] {
  const pending = notes.filter((n) => n.vectorPending).length;
  return pending === 0
    ? []
    : [`${pending} returned note(s) have no vector yet (indexing is catching up): found by full text only`];
}

const NO_NOTES: CandidateRead = { vector: [], text: [], vectorPath: 'none', warning: undefined };
const NO_RECORDS: RecordChannels = { vector: [], text: [] };

/** Record rows read per channel: what the fusion may use, and at least k. */
function recordLimit(k: number, fusion: FusionPolicy): number {
  return Math.min(400, Math.max(k, fusion.depth.recordVector, fusion.depth.recordText));
}

interface StatsInput {
  read: CandidateRead;
  records: RecordChannels;
  merged: { rows: unknown[]; leftOut: number };
  assembly: Assembly;
  settled: { suppressed: number };
  selection: FusedSelection;
  usageLogged: number;
}

function statsOf(s: StatsInput) {
  return {
    candidates: s.merged.rows.length,
    vectorCandidates: s.read.vector.length,
    textCandidates: s.read.text.length,
    vectorPath: s.read.vectorPath,
    duplicatesFolded: s.assembly.duplicatesFolded,
    overBudget: s.selection.overBudget,
    usageLogged: s.usageLogged,
    recordVectorCandidates: s.records.vector.length,
    recordTextCandidates: s.records.text.length,
    recordsAtNamedTimes: s.records.atTimes?.length ?? 0,
    recordsCitedByNotes: s.selection.citedByNotes,
    contradictedLeftOut: s.merged.leftOut,
    belowMinRelevance: s.selection.belowMinRelevance,
    slotConflictsSuppressed: s.settled.suppressed,
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

function candidateParams(req: ParsedRecallRequest, question: string, at: Date): TextParams {
  return {
    tenantId: req.tenantId,
    at: at.toISOString(),
    pointInTime: req.asOf !== undefined,
    scopes: normalizeScopes(req.scope),
    queryVector: null,
    queryText: fullTextQuery(contentTokens(question)),
    limit: candidateLimit(req.k),
  };
}

interface ScoringContext {
  query: string;
  at: Date;
  embedder: Embedder;
  policy: RecallScorePolicy;
  vectorPath: VectorPath;
  /** Scope levels the request names (undefined: every scope of the tenant). */
  requestedLevels: NoteScope['level'][] | undefined;
}

/** Each candidate's score parts under the policy, and the one-line reason a caller reads. */
function scoreCandidates(candidates: CandidateRow[], ctx: ScoringContext): ScoredCandidate[] {
  const lexical = candidateMatches(
    ctx.query,
    candidates.map((c) => c.version.claim),
  );
  return candidates.map((c, i) => {
    const parts = scoreCandidate(
      {
        vectorSimilarity: c.distance === null ? null : 1 - c.distance,
        similarityFloor: ctx.embedder.similarityFloor ?? 0,
        lexical: lexical[i] as number,
        confidence: c.version.confidence,
        importance: c.version.importance,
        kind: c.version.kind,
        lastConfirmedAt: new Date(c.version.lastConfirmedAt),
        at: ctx.at,
        broaderThanRequest: isBroaderThanRequest(c.version.scope.level, ctx.requestedLevels),
      },
      ctx.policy,
    );
    const vectorState = c.distance !== null ? 'compared' : ctx.vectorPath === 'none' ? 'other_model' : 'not_embedded';
    return {
      version: c.version,
      parts,
      why: explainScore(parts, vectorState),
      ...(vectorState === 'not_embedded' ? { vectorPending: true } : {}),
    };
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
