import type { NoteKind, SCOPE_LEVELS } from '../src/contracts/note.ts';
import { decayFactor } from './decay.ts';
import { memoByText } from './memo.ts';
import { contentTokens, coverage, inflectionStem } from './text.ts';

/**
 * How recall ranks a candidate note. Relevance to the query (vector similarity and lexical
 * match) decides whether a note is worth showing at all; the note's own standing (confidence,
 * importance, freshness by kind) only reorders relevant notes. So the prior multiplies
 * relevance instead of being added to it: a confident but unrelated note never outranks a
 * related one, and a query that matches nothing scores near zero (abstention stays possible).
 *
 *   relevance = (vector·sim' + text·lexical) / (vector + text),  sim' = (cosine − floor) / (1 − floor)
 *   prior     = (confidence·c + importance·i + decay·d) / (confidence + importance + decay)
 *   score     = relevance × (priorFloor + (1 − priorFloor) × prior) × breadth
 *
 * breadth is `broadScopeFactor` for a note about the agent or the tenant as a whole when the
 * request names a narrower scope (a user, a session, a task type), else 1: a note stated about
 * this person or this kind of task is about the request; a note about the agent's tools in
 * general competes for the same few slots with less claim to them.
 */
export interface RecallScorePolicy {
  readonly name: string;
  readonly weights: {
    readonly vector: number;
    readonly text: number;
    readonly confidence: number;
    readonly importance: number;
    readonly decay: number;
  };
  /** Share of the score that the prior cannot take away (0..1). */
  readonly priorFloor: number;
  /** Two claims at least this similar (jaccard of content tokens) are one note in the context. */
  readonly duplicateJaccard: number;
  /** Score multiplier of an agent- or tenant-wide note when the request names a narrower scope (0..1). */
  readonly broadScopeFactor: number;
}

export const DEFAULT_RECALL_SCORE_POLICY: RecallScorePolicy = {
  name: 'hybrid-v2',
  weights: { vector: 0.65, text: 0.35, confidence: 0.45, importance: 0.25, decay: 0.3 },
  priorFloor: 0.6,
  duplicateJaccard: 0.8,
  broadScopeFactor: 0.8,
};

/** Scope levels that hold knowledge about the agent or the tenant as a whole. */
const BROAD_LEVELS: ReadonlySet<ScopeLevel> = new Set(['agent', 'tenant']);

/**
 * Whether a note is broader than the request: it holds agent- or tenant-wide knowledge while the
 * request names a user, a session or a task type. Without requested scopes nothing is broader.
 */
export function isBroaderThanRequest(noteLevel: ScopeLevel, requested: readonly ScopeLevel[] | undefined): boolean {
  return BROAD_LEVELS.has(noteLevel) && (requested ?? []).some((level) => !BROAD_LEVELS.has(level));
}

export interface ScoreInput {
  /** Cosine similarity of query and claim embeddings, or null when the claim is not embedded yet. */
  vectorSimilarity: number | null;
  /** The embedding model's "unrelated" cosine: similarity is rescaled from it to 1. @default 0 */
  similarityFloor?: number;
  /** Share of the query's content tokens found in the claim (0..1). */
  lexical: number;
  confidence: number;
  importance: number;
  kind: NoteKind;
  lastConfirmedAt: Date;
  /** The moment recall answers for: now, or `asOf` for an audit. */
  at: Date;
  /** The note is agent- or tenant-wide while the request names a narrower scope. @default false */
  broaderThanRequest?: boolean;
}

export interface ScoreParts {
  vector: number;
  text: number;
  confidence: number;
  importance: number;
  decay: number;
  relevance: number;
  prior: number;
  score: number;
}

type ScopeLevel = (typeof SCOPE_LEVELS)[number];

const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/**
 * How well a text matches the query, 0..1, from its cosine (rescaled from the model's floor) and
 * its word match, weighed by the policy; `textShare` scales the word match's weight (recall's
 * record ranking lowers it for long records). Notes and raw records are matched alike by it.
 */
export function relevanceOf(
  input: { vectorSimilarity: number | null; lexical: number; similarityFloor?: number; textShare?: number },
  policy: RecallScorePolicy = DEFAULT_RECALL_SCORE_POLICY,
): { vector: number; text: number; relevance: number } {
  const w = policy.weights;
  // Cosine similarity below zero carries no evidence of relevance; an unembedded claim competes on text alone.
  const floor = input.similarityFloor ?? 0;
  const vector = input.vectorSimilarity === null ? 0 : clamp01((input.vectorSimilarity - floor) / (1 - floor));
  const text = clamp01(input.lexical);
  const textWeight = w.text * (input.textShare ?? 1);
  return { vector, text, relevance: (w.vector * vector + textWeight * text) / (w.vector + textWeight) };
}

export function scoreCandidate(input: ScoreInput, policy: RecallScorePolicy = DEFAULT_RECALL_SCORE_POLICY): ScoreParts {
  const w = policy.weights;
  const { vector, text, relevance } = relevanceOf(input, policy);
  const confidence = clamp01(input.confidence);
  const importance = clamp01(input.importance);
  const decay = clamp01(decayFactor(input.kind, input.lastConfirmedAt, input.at));
  const prior =
    (w.confidence * confidence + w.importance * importance + w.decay * decay) / (w.confidence + w.importance + w.decay);
  const breadth = input.broaderThanRequest ? policy.broadScopeFactor : 1;
  const score = relevance * (policy.priorFloor + (1 - policy.priorFloor) * prior) * breadth;
  return { vector, text, confidence, importance, decay, relevance, prior, score };
}

/** Lexical match: the share of the query's content tokens that occur in the claim (each word weighs 1 unless `weights` says otherwise). */
export function lexicalMatch(query: string, claim: string, weights?: ReadonlyMap<string, number>): number {
  const q = [...new Set(contentTokens(query))];
  if (q.length === 0) return 0;
  if (!weights) return coverage(q, contentTokens(claim));
  return weightedCoverage(q, new Set(contentTokens(claim)), weights);
}

/**
 * The weighted share of the query's words `q` found in a claim's word set; with the claim's
 * `inflected` words (`inflectionStem`), a word found only in another inflection counts
 * INFLECTED_MATCH of its weight.
 */
function weightedCoverage(
  q: readonly string[],
  inClaim: ReadonlySet<string>,
  weights: ReadonlyMap<string, number>,
  inflected?: ReadonlySet<string>,
) {
  const weight = (t: string) => weights.get(t) ?? 0;
  const found = (t: string) => (inClaim.has(t) ? 1 : inflected?.has(inflectionStem(t)) ? INFLECTED_MATCH : 0);
  const total = q.reduce((s, t) => s + weight(t), 0);
  return total === 0 ? 0 : q.reduce((s, t) => s + found(t) * weight(t), 0) / total;
}

/**
 * Inverse document frequency of each query word among the candidate claims (BM25's form). A
 * word most candidates share (a person's name in their own conversation, the product every note
 * is about) tells them apart little, so it weighs little; a word few share weighs much.
 * Measured on the candidates, which both channels chose for this query, not on the whole tenant:
 * no extra query, and the weights rank exactly the notes being ranked.
 */
export function candidateIdf(query: string, claims: readonly string[]): Map<string, number> {
  return idfOf(
    [...new Set(contentTokens(query))],
    claims.map((c) => new Set(contentTokens(c))),
  );
}

function idfOf(q: readonly string[], docs: ReadonlyArray<ReadonlySet<string>>): Map<string, number> {
  const n = docs.length;
  return new Map(
    q.map((t) => {
      const df = docs.reduce((s, d) => s + (d.has(t) ? 1 : 0), 0);
      return [t, Math.log(1 + (n - df + 0.5) / (df + 0.5))];
    }),
  );
}

/**
 * Each claim's `lexicalMatch` under the candidates' IDF (`candidateIdf`), in one pass: every claim
 * and the query are tokenized once, where the two calls would tokenize each claim twice and the
 * query once per claim. Recall runs it over every candidate of every query. A query word the claim
 * holds only in another inflection counts `INFLECTED_MATCH` of its weight.
 */
export function candidateMatches(query: string, claims: readonly string[]): number[] {
  const q = [...new Set(contentTokens(query))];
  if (q.length === 0) return claims.map(() => 0);
  const docs = claims.map((c) => new Set(contentTokens(c)));
  const idf = idfOf(q, docs);
  return docs.map((words, i) => weightedCoverage(q, words, idf, stemsOf(claims[i] as string)));
}

/**
 * A query word a candidate holds only in another inflection ("camped" for "camping", "kids" for
 * "kid") counts this share of its weight in `candidateMatches`: the same word, but a looser match
 * than its very form, which long texts hold in many inflections of common words. Chosen on the
 * tuning halves (docs/EVALUATION.md, "Words in another inflection").
 */
export const INFLECTED_MATCH = 0.5;

/** Each text's content words without their inflections (`inflectionStem`), per text. */
const stemsOf: (text: string) => ReadonlySet<string> = memoByText(
  (text) => new Set(contentTokens(text).map(inflectionStem)),
  8192,
);

/**
 * Word matches discounted by length as BM25 discounts term frequency (Robertson et al.): each
 * match divided by `1 - b + b * length / mean length` of the texts matched together, at most 1.
 * A text shorter than the mean keeps its match; one three times as long keeps less than half of
 * it at b = 0.75. `b` = 0 returns the matches as they are.
 */
export function lengthNormalized(matches: readonly number[], lengths: readonly number[], b: number): number[] {
  if (b <= 0 || lengths.length === 0) return [...matches];
  const mean = lengths.reduce((s, l) => s + l, 0) / lengths.length || 1;
  return matches.map((m, i) => Math.min(m, m / (1 - b + (b * (lengths[i] as number)) / mean)));
}

/** The context budget's unit: about four characters per token, rounded up. */
export function approxTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Whether the claim's vector took part: compared, not embedded yet, or from another model (reindex pending). */
export type VectorState = 'compared' | 'not_embedded' | 'other_model';

/** A short human reason for the choice, from the parts that carried the score. */
export function explainScore(p: ScoreParts, vectorState: VectorState): string {
  const reasons: string[] = [];
  if (vectorState === 'not_embedded') reasons.push('not embedded yet: matched on text only');
  else if (vectorState === 'other_model')
    reasons.push('vectors from another model (reindex pending): matched on text only');
  else if (p.vector >= 0.5) reasons.push(`semantically close (${p.vector.toFixed(2)})`);
  else reasons.push(`semantic similarity ${p.vector.toFixed(2)}`);
  if (p.text > 0) reasons.push(`${Math.round(p.text * 100)}% of query terms in the claim`);
  reasons.push(`confidence ${p.confidence.toFixed(2)}`);
  if (p.decay < 0.5) reasons.push(`fading (last confirmed long ago, decay ${p.decay.toFixed(2)})`);
  if (p.importance >= 0.8) reasons.push('high importance');
  return reasons.join('; ');
}
