/**
 * Reciprocal rank fusion (Cormack et al., 2009): each ranking adds weight / (k + rank) to the
 * items it ranks, so an item several channels agree on rises, and no channel's raw scores
 * (cosine, ts_rank, the note policy's score) need to be comparable. `k` damps the head: a
 * large k makes rank 1 and rank 10 nearly equal, a small one trusts each channel's top.
 *
 * Recall fuses up to four rankings: notes (the note policy's order), raw records by vector
 * similarity, raw records by full text, and those records ranked together by meaning and words
 * (`recordHybrid`). Each channel contributes at most `depth` items (the record ranking as many as
 * the vector channel).
 */
export interface FusionPolicy {
  readonly name: string;
  /** The RRF constant. */
  readonly k: number;
  readonly weights: {
    readonly notes: number;
    readonly recordVector: number;
    readonly recordText: number;
    /** Records ranked as notes are: one relevance from cosine and word match (policies/record-recall.ts). @default 0 */
    readonly recordHybrid?: number;
    /** A note that holds a lesson ({@link isLesson}) weighs this much in the notes' ranking. @default notes */
    readonly lessons?: number;
  };
  /** Items each channel may contribute before fusion. */
  readonly depth: { readonly notes: number; readonly recordVector: number; readonly recordText: number };
  /** Move a newer item that gives another value of what the query asks about above the older one (policies/recall-updates.ts). */
  readonly updatesFirst: boolean;
  /**
   * How much a record's length discounts its word match in the record ranking, BM25's `b` (0..1):
   * a long answer holds most of a query's words once and says nothing about most of them.
   * 0 leaves the match as it is. @default 0
   */
  readonly recordLengthNorm?: number;
  /**
   * Characters up to which the record ranking weighs word match and cosine as the notes' ranking
   * does. When the candidate records' median told length is longer, the word match keeps
   * `span / median` of its weight: a long message holds many of a query's words by chance, and
   * its meaning is what sets it apart. Off when absent.
   */
  readonly recordTextSpan?: number;
  /**
   * A record that ends by asking, once placed, brings its reply right after it: the next record
   * of its session, a person's words said by another speaker (`endsAsking`, `REPLY_KINDS` in
   * policies/record-recall.ts; src/recall/record-queries.ts). @default false
   */
  readonly replyAfterQuestion?: boolean;
  /**
   * A question that names a day, a week or a month ("on 7 July, 2023", "in May 2023",
   * policies/query-time.ts): up to `depth` records observed then (those sharing most of its words
   * first) join the candidates, and every candidate observed then ranks as if `boost` more
   * relevant. A day counts with the `slackDays` after it: people tell of a day in the days after
   * it. Off when absent.
   */
  readonly namedTime?: { readonly boost: number; readonly slackDays: number; readonly depth: number };
}

/**
 * Tuned on the tuning split only (LoCoMo conversations 1–3 of the public half, 396 questions with
 * evidence before the cutoff; evidence recall@1/5/10, `tools/eval/fusion-offline.ts`). Records
 * are ranked once, as notes are (cosine and IDF-weighted word match over the record told in the
 * third person with absolute times), instead of by two channels: notes 2 with the vector and
 * full-text channels 1 each (`rrf-v2`) 24.9/55.7/64.4; notes 1 and the one record ranking 1
 * 24.9/60.7/71.1, 1.1 41.0/64.7/72.7, 1.2 40.9/63.8/70.6; notes 1.5 against it 24.9/36.7/40.9.
 * At 1.1 a record the query names best comes first and notes join from about the seventh
 * place; a note that cites a record already placed takes that record's place. The vector and
 * full-text channels stay as the ranking's candidates (weight 0). A lesson ({@link isLesson})
 * keeps the weight every note had in `rrf-v2` (2): it states what no record says, and the closed
 * loop (`nocturne simulate`) needs it above the raw correction it came from. LoCoMo holds no
 * lesson, so its numbers do not move with that weight.
 *
 * `rrf-v4` adds the record text span and the knowledge-update rule, chosen on BEAM's tuning chats
 * 1–5 and LoCoMo's 1–3 (`tools/eval/updates-offline.ts --schema`, `fusion-offline.ts`). LoCoMo's
 * turns are short (median 127 characters), BEAM's messages long (median 1,511). BEAM chats 1–5
 * evidence R@5 36.8% without a span. Weighing each record's word match by its own length lost
 * (span 200, 400, 800: 32.8%, 30.9%, 30.4%): a short record kept its match and outranked the long
 * ones. Weighed by the candidates' median length: span 400 42.7%, 200 43.8%, 100 44.6%; LoCoMo 1–3
 * R@5 64.6% without, 64.6% at 400, 64.5% at 200, 63.6% at 100. So 200.
 *
 * `rrf-v5` brought the reply to a record that ends by asking right after it (`replyAfterQuestion`):
 * a question that matches the query is most often answered in words the query does not share
 * ("How long have you been married?" → "5 years already!"). LoCoMo 1–3 R@1/5/10: replies to
 * records that only ask 41.5/67.8/74.5%, to every record that ends by asking 41.5/70.3/76.5%,
 * without 41.5/66.2/73.0. A reply must be a person's words (`REPLY_KINDS`): with an assistant's
 * answers brought after every user message that asks, BEAM's tuning chats 1–5 fell from
 * 52.6/64.8% to 49.4/58.2% at R@5/R@10; with a person's only, BEAM 1–5 is unchanged to the decimal.
 * It came with a record that only asks about someone else ("Wow! What kinda jobs are you thinking
 * of?") keeping 0.8 of its relevance, chosen on LoCoMo 1–3 before the replies existed.
 *
 * `rrf-v6` leaves that weight out: on the build with replies it no longer helped on any tuning
 * conversation (LoCoMo 1, 2, 3 evidence R@10 74.7 / 77.5 / 82.8% with it, 76.3 / 78.2 / 84.1%
 * without; R@5 69.7 / 70.1 / 74.1% against 68.8 / 72.1 / 74.1%; R@1 42.5 / 41.7 / 45.6% against
 * 41.6 / 41.7 / 45.4%) and BEAM's chats 1–5 and 6–10 are the same to the decimal either way.
 *
 * `rrf-v7` reads what was said at the time a question names (`namedTime`), chosen on LoCoMo 1–3
 * (`fusion-offline.ts`, `-t` for without; R@1/5/10 45.1/74.1/80.7% without). Its 25 questions
 * that name a time outright, with evidence before the cutoff: R@5 72.0% without, 80.0% with.
 * Over all 396: raised by 0.1 without reading the records of that time 45.6/74.4/81.3; read
 * (the 20 nearest by meaning) and raised by 0.2 45.6/74.6/81.0, by 0.3 45.3/74.6/81.0, by 0.4
 * 45.3/74.1/81.0; a day with 0, 1 or 3 days after it the same; a record whose told times (not
 * the day it was said) fall then raised too, the same. Read by word match while the question is
 * embedded instead of by meaning after it (no wait for a statement of their own): 10, 20, 30 or
 * 50 read the same, 45.6/74.6/81.0; 30 holds a day's conversation. A month named alone ("camping
 * in June") read as the last such month: 45.6/74.9/81.3. BEAM's chats 1–5 and 6–10 are the same
 * to the decimal.
 */
export const DEFAULT_FUSION_POLICY: FusionPolicy = {
  name: 'rrf-v7',
  k: 60,
  weights: { notes: 1, lessons: 2, recordVector: 0, recordText: 0, recordHybrid: 1.1 },
  depth: { notes: 50, recordVector: 50, recordText: 50 },
  updatesFirst: true,
  recordTextSpan: 200,
  replyAfterQuestion: true,
  namedTime: { boost: 0.2, slackDays: 1, depth: 30 },
};

/** Where a lesson comes from: a user's correction, a tool's answer, an approval. */
const LESSON_SOURCES: ReadonlySet<string> = new Set(['user_correction', 'tool_fact', 'approval']);

/**
 * A lesson: a note drawn from a correction, a tool's answer, an approval, or inferred from a
 * failure (a trial contrast, a reported problem). What someone told about themselves, a liking
 * they stated, and an episode's digest restate their records, so they compete with those
 * records; a lesson says what the records do not.
 */
export function isLesson(note: { sourceKind: string; kind: string }): boolean {
  if (LESSON_SOURCES.has(note.sourceKind)) return true;
  return note.sourceKind === 'inference' && note.kind !== 'episode_summary';
}

export interface Ranking {
  weight: number;
  /** Items of this ranking that weigh otherwise than `weight`. */
  weightOf?: ReadonlyMap<string, number>;
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
      fused.score += (ranking.weightOf?.get(id) ?? ranking.weight) / (k + i + 1);
      fused.ranks[channel] = i + 1;
      byId.set(id, fused);
    });
  });
  return [...byId.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
