/**
 * Reciprocal rank fusion (Cormack et al., 2009): each ranking adds weight / (k + rank) to the
 * items it ranks, so an item several channels agree on rises, and no channel's raw scores
 * (cosine, ts_rank, the note policy's score) need to be comparable. `k` damps the head: a
 * large k makes rank 1 and rank 10 nearly equal, a small one trusts each channel's top.
 *
 * Recall fuses three rankings: notes (the note policy's order), raw records by vector
 * similarity, raw records by full text. Each channel contributes at most `depth` items.
 */
export interface FusionPolicy {
  readonly name: string;
  /** The RRF constant. */
  readonly k: number;
  readonly weights: { readonly notes: number; readonly recordVector: number; readonly recordText: number };
  /** Items each channel may contribute before fusion. */
  readonly depth: { readonly notes: number; readonly recordVector: number; readonly recordText: number };
  /** Move a newer item that gives another value of what the query asks about above the older one (policies/recall-updates.ts). */
  readonly updatesFirst: boolean;
}

/**
 * Tuned on the tuning split only (LoCoMo conversations 1–2 of the public half, 245 questions;
 * evidence recall@1/5/10): notes alone 34.9/50.3/56.6; equal weights 20.8/40.8/58.4 (the two
 * record channels outvote the one note channel, and a note covers several evidence ids); notes
 * weighted 2 34.9/53.4/61.5. A smaller k (10 or 30) trades @1 away for @10.
 */
export const DEFAULT_FUSION_POLICY: FusionPolicy = {
  name: 'rrf-v2',
  k: 60,
  weights: { notes: 2, recordVector: 1, recordText: 1 },
  depth: { notes: 50, recordVector: 50, recordText: 50 },
  updatesFirst: false,
};

export interface Ranking {
  weight: number;
  /** Item ids, best first; an id listed twice counts at its first rank. */
  ids: readonly string[];
}

export interface Fused {
  id: string;
  score: number;
  /** 1-based rank of the item in each ranking, or null where it is absent. */
  ranks: Array<number | null>;
}

/** Fused order, best first; ties broken by id so one store always gives the same answer. */
export function reciprocalRankFusion(rankings: readonly Ranking[], k: number): Fused[] {
  if (!(k >= 0)) throw new RangeError(`the RRF constant must be ≥ 0, got ${k}`);
  const byId = new Map<string, Fused>();
  rankings.forEach((ranking, channel) => {
    const seen = new Set<string>();
    ranking.ids.forEach((id, i) => {
      if (seen.has(id)) return;
      seen.add(id);
      const fused = byId.get(id) ?? { id, score: 0, ranks: rankings.map(() => null) };
      fused.score += ranking.weight / (k + i + 1);
      fused.ranks[channel] = i + 1;
      byId.set(id, fused);
    });
  });
  return [...byId.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
