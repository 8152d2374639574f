import { reciprocalRankFusion, type FusionPolicy, type Fused } from '../../policies/fusion.ts';
import { approxTokens } from '../../policies/recall-score.ts';
import { updatesFirst, type UpdateView } from '../../policies/recall-updates.ts';
import type { AssembledItem } from './assemble.ts';
import type { RankedItem } from './contract.ts';
import type { RecordRow } from './record-queries.ts';

export interface RecordChannels {
  vector: readonly RecordRow[];
  text: readonly RecordRow[];
}

export interface SelectedRecord {
  row: RecordRow;
  score: number;
  why: string;
  tokens: number;
}

export interface FusedSelection {
  /** Notes and records in the fused order. */
  items: Array<{ type: 'note'; note: AssembledItem } | { type: 'record'; record: SelectedRecord }>;
  tokens: number;
  overBudget: number;
  citedByNotes: number;
}

const NOTE = 'n:';
const RECORD = 'r:';

/**
 * The answer's order: the ranked notes (near-duplicates already folded) and the two record
 * channels fused by reciprocal rank (with `updatesFirst`, newer values of what the query asks
 * about swapped above the older ones they update: policies/recall-updates.ts), then walked best first into at most k items within the
 * token budget. A record a kept note cites as evidence is not repeated: the note shows it
 * already (and a record kept before such a note came is dropped again, freeing its place).
 */
export function selectFused(
  notes: readonly AssembledItem[],
  records: RecordChannels,
  opts: { k: number; tokenBudget: number | undefined; policy: FusionPolicy; query: string },
): FusedSelection {
  const { policy } = opts;
  const ranked = reciprocalRankFusion(
    [
      { weight: policy.weights.notes, ids: notes.slice(0, Math.max(opts.k, policy.depth.notes)).map(noteKey) },
      { weight: policy.weights.recordVector, ids: records.vector.slice(0, policy.depth.recordVector).map(recordKey) },
      { weight: policy.weights.recordText, ids: records.text.slice(0, policy.depth.recordText).map(recordKey) },
    ],
    policy.k,
  );
  const noteById = new Map(notes.map((n) => [noteKey(n), n]));
  const recordById = new Map([...records.text, ...records.vector].map((r) => [recordKey(r), r]));
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
  const out: FusedSelection = { items: [], tokens: 0, overBudget: 0, citedByNotes: 0 };
  const cited = new Set<string>();
  for (const f of fused) {
    if (out.items.length >= opts.k) break;
    const note = noteById.get(f.id);
    if (note) {
      if (!fits(out, note.tokens, opts.tokenBudget)) continue;
      out.items.push({ type: 'note', note });
      out.tokens += note.tokens;
      for (const e of note.version.evidence) cited.add(e.recordId);
      dropCited(out, cited);
      continue;
    }
    const row = recordById.get(f.id) as RecordRow;
    if (cited.has(row.recordId)) {
      out.citedByNotes += 1;
      continue;
    }
    const tokens = approxTokens(row.text);
    if (!fits(out, tokens, opts.tokenBudget)) continue;
    out.items.push({ type: 'record', record: { row, score: f.score, why: explainRecord(f, row), tokens } });
    out.tokens += tokens;
  }
  return out;
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

function dropCited(out: FusedSelection, cited: ReadonlySet<string>): void {
  const kept = out.items.filter((i) => i.type === 'note' || !cited.has(i.record.row.recordId));
  for (const i of out.items) {
    if (i.type === 'record' && cited.has(i.record.row.recordId)) {
      out.tokens -= i.record.tokens;
      out.citedByNotes += 1;
    }
  }
  out.items = kept;
}

/** Which channels found the record, and how high. */
function explainRecord(f: Fused, row: RecordRow): string {
  const [, vectorRank, textRank] = f.ranks;
  const reasons: string[] = [];
  if (textRank) reasons.push(`full-text rank ${textRank}`);
  if (vectorRank) {
    const cosine = row.distance === null ? '' : ` (cosine ${(1 - row.distance).toFixed(2)})`;
    reasons.push(`vector rank ${vectorRank}${cosine}`);
  }
  return `raw record: ${reasons.join(', ')}`;
}
