import { isLesson, reciprocalRankFusion, type FusionPolicy, type Fused } from '../../policies/fusion.ts';
import { approxTokens, candidateMatches, lengthNormalized, relevanceOf } from '../../policies/recall-score.ts';
import { toldText } from '../../policies/record-recall.ts';
import { inTimeWindows, type TimeWindow } from '../../policies/query-time.ts';
import { updatesFirst, type UpdateView } from '../../policies/recall-updates.ts';
import type { AssembledItem } from './assemble.ts';
import type { RankedItem } from './contract.ts';
import type { RecordRow } from './record-queries.ts';

export interface RecordChannels {
  vector: readonly RecordRow[];
  text: readonly RecordRow[];
  /** Records observed at the times the query names (policies/query-time.ts), when it names any. */
  atTimes?: readonly RecordRow[];
  /** The reply to each candidate that ends by asking (by the asking record's id), when read. */
  replies?: ReadonlyMap<string, RecordRow>;
}

export interface SelectedRecord {
  row: RecordRow;
  score: number;
  /** How well it matches the query, 0..1: cosine and word match, weighed as a note's relevance is. */
  relevance: number;
  why: string;
  tokens: number;
}

export interface FusedSelection {
  /** Notes and records in the fused order. */
  items: Array<{ type: 'note'; note: AssembledItem } | { type: 'record'; record: SelectedRecord }>;
  tokens: number;
  overBudget: number;
  citedByNotes: number;
  belowMinRelevance: number;
}

const NOTE = 'n:';
const lesson = (n: AssembledItem): boolean => isLesson(n.version);
const RECORD = 'r:';

/**
 * The answer's order: the ranked notes (near-duplicates already folded) and the two record
 * channels fused by reciprocal rank (with `updatesFirst`, newer values of what the query asks
 * about swapped above the older ones they update: policies/recall-updates.ts), then walked best first into at most k items within the
 * token budget. A record a kept note cites as evidence is not repeated: the note shows it
 * already (a record kept before such a note came gives the note its place).
 */
export function selectFused(
  notes: readonly AssembledItem[],
  records: RecordChannels,
  opts: {
    k: number;
    tokenBudget: number | undefined;
    policy: FusionPolicy;
    query: string;
    similarityFloor?: number;
    minRelevance?: number | undefined;
    /** When the things said at the times the query names were said (policies/query-time.ts). */
    namedTimes?: readonly TimeWindow[];
  },
): FusedSelection {
  const { policy } = opts;
  const topNotes = notes.slice(0, Math.max(opts.k, policy.depth.notes));
  const noteIds = topNotes.map(noteKey);
  const lessonWeight = policy.weights.lessons ?? policy.weights.notes;
  const lessonWeights = new Map(topNotes.filter(lesson).map((n) => [noteKey(n), lessonWeight]));
  const relevance = recordRelevance(records, opts.query, opts.similarityFloor ?? 0, policy, opts.namedTimes ?? []);
  const hybrid = policy.weights.recordHybrid ? byRelevance(relevance).slice(0, policy.depth.recordVector) : [];
  const ranked = reciprocalRankFusion(
    [
      { weight: policy.weights.notes, ids: noteIds, weightOf: lessonWeights },
      { weight: policy.weights.recordVector, ids: records.vector.slice(0, policy.depth.recordVector).map(recordKey) },
      { weight: policy.weights.recordText, ids: records.text.slice(0, policy.depth.recordText).map(recordKey) },
      { weight: policy.weights.recordHybrid ?? 0, ids: hybrid.map(recordKey) },
    ],
    policy.k,
  );
  const noteById = new Map(notes.map((n) => [noteKey(n), n]));
  const recordById = new Map(
    [...(records.atTimes ?? []), ...records.text, ...records.vector].map((r) => [recordKey(r), r]),
  );
  const viewOf = (f: Fused): UpdateView => {
    const note = noteById.get(f.id);
    if (note)
      return {
        text: note.version.claim,
        observedAt: note.version.validFrom,
        speaker: note.version.structure?.subject.id,
      };
    const row = recordById.get(f.id) as RecordRow;
    return { text: row.text, observedAt: row.observedAt, speaker: row.speaker };
  };
  const fused = policy.updatesFirst ? updatesFirst(ranked, opts.query, viewOf) : ranked;
  const out: FusedSelection = { items: [], tokens: 0, overBudget: 0, citedByNotes: 0, belowMinRelevance: 0 };
  const matches = (itemRelevance: number): boolean => {
    if (opts.minRelevance === undefined || itemRelevance >= opts.minRelevance) return true;
    out.belowMinRelevance += 1;
    return false;
  };
  const cited = new Set<string>();
  const placed = new Set<string>();
  for (const f of fused) {
    if (out.items.length >= opts.k) break;
    const note = noteById.get(f.id);
    if (note) {
      if (!matches(note.parts.relevance) || !fits(out, note.tokens, opts.tokenBudget)) continue;
      out.tokens += note.tokens;
      for (const e of note.version.evidence) cited.add(e.recordId);
      placeNote(out, note, cited);
      continue;
    }
    const row = recordById.get(f.id) as RecordRow;
    if (cited.has(row.recordId)) {
      out.citedByNotes += 1;
      continue;
    }
    if (placed.has(row.recordId)) continue;
    const tokens = approxTokens(row.text);
    const matched = relevance.get(row.recordId)?.relevance ?? 0;
    if (!matches(matched) || !fits(out, tokens, opts.tokenBudget)) continue;
    const saidThen = relevance.get(row.recordId)?.saidThen === true;
    const record = { row, score: f.score, relevance: matched, why: explainRecord(f, row, saidThen), tokens };
    out.items.push({ type: 'record', record });
    out.tokens += tokens;
    placed.add(row.recordId);
    const reply = policy.replyAfterQuestion ? records.replies?.get(row.recordId) : undefined;
    if (reply !== undefined)
      placeReply(out, record, reply, { placed, cited, k: opts.k, tokenBudget: opts.tokenBudget });
  }
  return out;
}

/**
 * The reply to a record just placed that ends by asking comes right after it, with the asking
 * record's score and relevance (it is shown because that record matched): what the other person
 * says next most often answers it, in words the query may not share ("How long have you been
 * married?" → "5 years already!").
 */
function placeReply(
  out: FusedSelection,
  asking: SelectedRecord,
  reply: RecordRow,
  at: { placed: Set<string>; cited: ReadonlySet<string>; k: number; tokenBudget: number | undefined },
): void {
  if (at.placed.has(reply.recordId) || at.cited.has(reply.recordId) || out.items.length >= at.k) return;
  const tokens = approxTokens(reply.text);
  if (!fits(out, tokens, at.tokenBudget)) return;
  const why = `raw record: the reply to ${asking.row.recordId}, which asked and matched (${asking.why.replace(/^raw record: /, '')})`;
  out.items.push({ type: 'record', record: { ...asking, row: reply, why, tokens } });
  out.tokens += tokens;
  at.placed.add(reply.recordId);
}

export function rankingOf(selection: FusedSelection): RankedItem[] {
  return selection.items.map((i) =>
    i.type === 'note' ? { type: 'note', id: i.note.version.noteId } : { type: 'record', id: i.record.row.recordId },
  );
}

const noteKey = (n: AssembledItem): string => `${NOTE}${n.version.noteId}`;
const recordKey = (r: RecordRow): string => `${RECORD}${r.recordId}`;

function fits(out: FusedSelection, tokens: number, budget: number | undefined): boolean {
  if (budget === undefined || out.tokens + tokens <= budget) return true;
  out.overBudget += 1;
  return false;
}

/**
 * Keeps a note where the best-ranked record it cites stood (the note shows that record, so its
 * evidence keeps its rank), else last; records it cites leave the list, freeing their places.
 */
function placeNote(out: FusedSelection, note: AssembledItem, cited: ReadonlySet<string>): void {
  const isCited = (i: FusedSelection['items'][number]) => i.type === 'record' && cited.has(i.record.row.recordId);
  const at = out.items.findIndex(isCited);
  const items = [...out.items];
  items.splice(at < 0 ? items.length : at, 0, { type: 'note', note });
  for (const i of items) {
    if (i.type === 'record' && isCited(i)) {
      out.tokens -= i.record.tokens;
      out.citedByNotes += 1;
    }
  }
  out.items = items.filter((i) => !isCited(i));
}

/** Which channels found the record, and how high. */
function explainRecord(f: Fused, row: RecordRow, saidThen: boolean): string {
  const [, vectorRank, textRank, hybridRank] = f.ranks;
  const reasons: string[] = [];
  if (hybridRank) reasons.push(`rank ${hybridRank} by meaning and words`);
  if (textRank) reasons.push(`full-text rank ${textRank}`);
  if (vectorRank) {
    const cosine = row.distance === null ? '' : ` (cosine ${(1 - row.distance).toFixed(2)})`;
    reasons.push(`vector rank ${vectorRank}${cosine}`);
  }
  if (saidThen) reasons.push('said at the time the query names');
  return `raw record: ${reasons.join(', ')}`;
}

interface RecordRelevance {
  row: RecordRow;
  /** How well it matches the query, 0..1. */
  relevance: number;
  /** What the record ranking orders by: the relevance, raised when said at a time the query names. */
  rankedBy: number;
  saidThen: boolean;
}

/**
 * The relevance of each record the channels found (by record id), as a note's is computed: the
 * cosine (rescaled from the model's floor) and the IDF-weighted share of the query's words in
 * the record told as a note would tell it, discounted by the record's length (`recordLengthNorm`)
 * and, for long candidates, weighed less (`recordTextSpan`); ranked higher when the record was
 * said at a time the query names (`namedTime`).
 */
function recordRelevance(
  records: RecordChannels,
  query: string,
  floor: number,
  policy: Pick<FusionPolicy, 'recordLengthNorm' | 'recordTextSpan' | 'namedTime'>,
  namedTimes: readonly TimeWindow[],
): Map<string, RecordRelevance> {
  const candidates = [...records.vector, ...records.text, ...(records.atTimes ?? [])];
  const rows = [...new Map(candidates.map((r) => [r.recordId, r])).values()];
  const told = rows.map(toldOf);
  const lexical = lengthNormalized(
    candidateMatches(query, told),
    told.map((t) => t.length),
    policy.recordLengthNorm ?? 0,
  );
  // The notes' relevance (policies/recall-score.ts), so both are ranked alike.
  const textShare = wordMatchShare(told, policy.recordTextSpan);
  const boost = policy.namedTime?.boost;
  return new Map(
    rows.map((r, i) => {
      const { relevance } = relevanceOf({
        vectorSimilarity: r.distance === null ? null : 1 - r.distance,
        lexical: lexical[i] as number,
        similarityFloor: floor,
        textShare,
      });
      const saidThen = boost !== undefined && inTimeWindows(r.observedAt, namedTimes);
      return [r.recordId, { row: r, relevance, rankedBy: saidThen ? relevance + boost : relevance, saidThen }];
    }),
  );
}

/** The records ranked as notes are ranked: by relevance (raised when said at a named time), ties by id. */
function byRelevance(relevance: ReadonlyMap<string, RecordRelevance>): RecordRow[] {
  return [...relevance.values()]
    .sort((a, b) => b.rankedBy - a.rankedBy || a.row.recordId.localeCompare(b.row.recordId))
    .map((s) => s.row);
}

/** How much of its weight the word match keeps: all of it up to the span, then span / the candidates' median length. */
function wordMatchShare(told: readonly string[], span: number | undefined): number {
  if (span === undefined || told.length === 0) return 1;
  const lengths = told.map((t) => t.length).sort((a, b) => a - b);
  const median = lengths[Math.floor(lengths.length / 2)] as number;
  return median <= span ? 1 : span / median;
}

/** The record told as a note: stored at index time (migration 0022), computed for a row indexed before it. */
export function toldOf(row: RecordRow): string {
  return row.told ?? toldText(row);
}
