import { approxTokens, type RecallScorePolicy, type ScoreParts } from '../../policies/recall-score.ts';
import { contentTokens, jaccardOfSets } from '../../policies/text.ts';
import type { NoteVersion } from '../contracts/note.ts';

export interface ScoredCandidate {
  version: NoteVersion;
  parts: ScoreParts;
  why: string;
  /** The version has no vector yet (its indexing has not caught up): found by full text alone. */
  vectorPending?: boolean;
}

export interface AssembledItem extends ScoredCandidate {
  tokens: number;
  duplicates: Array<{ noteId: string; version: number }>;
  /** Notes of the same slot left out in this one's favour (src/recall/settle.ts). */
  conflicts?: Array<{ noteId: string; version: number; claim: string; confidence: number }>;
}

export interface Assembly {
  items: AssembledItem[];
  tokens: number;
  duplicatesFolded: number;
  overBudget: number;
}

/** Best first; ties broken by note id so the same store gives the same context. */
export function byScore(a: ScoredCandidate, b: ScoredCandidate): number {
  return (
    b.parts.score - a.parts.score ||
    (a.version.noteId < b.version.noteId ? -1 : a.version.noteId > b.version.noteId ? 1 : 0)
  );
}

/**
 * Builds the context: best first, a near-duplicate of a kept claim is folded into it (the kept
 * one lists it), and a claim that does not fit the remaining token budget is skipped so a
 * smaller, lower-ranked one may still fit. Stops at k items.
 */
export function assembleContext(
  candidates: readonly ScoredCandidate[],
  opts: { k: number; tokenBudget: number | undefined; policy: RecallScorePolicy },
): Assembly {
  // Each kept claim's token set is built once: comparing every candidate with every kept claim
  // rebuilt both sets per pair.
  const kept: Array<AssembledItem & { tokenSet: ReadonlySet<string> }> = [];
  let tokens = 0;
  let duplicatesFolded = 0;
  let overBudget = 0;
  for (const c of [...candidates].sort(byScore)) {
    if (kept.length >= opts.k) break;
    const tokenSet = new Set(contentTokens(c.version.claim));
    const twin = kept.find((k) => isDuplicate(k.tokenSet, tokenSet, opts.policy.duplicateJaccard));
    if (twin) {
      twin.duplicates.push({ noteId: c.version.noteId, version: c.version.version });
      duplicatesFolded++;
      continue;
    }
    const size = approxTokens(c.version.claim);
    if (opts.tokenBudget !== undefined && tokens + size > opts.tokenBudget) {
      overBudget++;
      continue;
    }
    tokens += size;
    kept.push({ ...c, tokens: size, duplicates: [], tokenSet });
  }
  return { items: kept.map(({ tokenSet: _unused, ...item }) => item), tokens, duplicatesFolded, overBudget };
}

/**
 * Jaccard similarity of at least `threshold`. It cannot reach it when one set is smaller than
 * `threshold` times the other (the intersection is at most the smaller, the union at least the
 * larger), so most pairs are decided without walking a set.
 */
function isDuplicate(a: ReadonlySet<string>, b: ReadonlySet<string>, threshold: number): boolean {
  if (Math.min(a.size, b.size) < threshold * Math.max(a.size, b.size)) return false;
  return jaccardOfSets(a, b) >= threshold;
}
