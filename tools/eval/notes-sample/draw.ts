import type { NoteVersion } from '../../../src/contracts/note.ts';
import { seededRandom } from '../../../policies/random.ts';
import type { EvalCase, EvalRecord } from '../types.ts';
import { rubricFlags, type RubricCheck } from './rubric.ts';

/** A note as the sample shows it: the note, the records it cites, and the checks it trips. */
export interface SampledNote {
  caseId: string;
  note: NoteVersion;
  /** The note's structured content, when the store's version has one. */
  structure?: unknown;
  records: Array<{ goldId: string; kind: string; speaker?: string; observedAt: string; text: string }>;
  flags: RubricCheck[];
}

export interface NotesSample {
  seed: number;
  /** Committed notes the sample was drawn from. */
  pool: number;
  drawn: SampledNote[];
}

/** The sample's fixed seed: the same run draws the same notes. */
export const NOTES_SAMPLE_SEED = 9;

/** Committed: in the store after the run, whatever happened to it since (staged ones were never committed). */
export const committed = (n: NoteVersion): boolean => n.status !== 'staged' && n.status !== 'erased';

const MAX_RECORD_CHARS = 600;

/**
 * `size` notes (all, when fewer) drawn at random with `seed` from every case's committed notes.
 * The pool is put in an order that does not depend on generated ids (case, earliest cited
 * record, claim), so the same notes give the same draw.
 */
export function drawNotesSample(
  byCase: ReadonlyArray<{ evalCase: EvalCase; notes: readonly NoteVersion[] }>,
  size: number,
  seed = NOTES_SAMPLE_SEED,
): NotesSample {
  const pool = byCase.flatMap(({ evalCase, notes }) => {
    const index = new Map(evalCase.records.map((r, i) => [r.record.id, i]));
    const first = (n: NoteVersion) => Math.min(...n.evidence.map((e) => index.get(e.recordId) ?? Infinity));
    return notes
      .filter(committed)
      .map((note) => ({ evalCase, note, first: first(note) }))
      .sort((a, b) => a.first - b.first || (a.note.claim < b.note.claim ? -1 : a.note.claim > b.note.claim ? 1 : 0));
  });
  const random = seededRandom(seed);
  const order = pool.map((_, i) => i);
  const n = Math.min(size, pool.length);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(random() * (order.length - i));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const picked = order.slice(0, n).sort((a, b) => a - b);
  return { seed, pool: pool.length, drawn: picked.map((i) => sampled(pool[i] as (typeof pool)[number])) };
}

function sampled({ evalCase, note }: { evalCase: EvalCase; note: NoteVersion }): SampledNote {
  const byId = new Map(evalCase.records.map((r) => [r.record.id, r]));
  const cited = note.evidence.flatMap((e) => byId.get(e.recordId) ?? []);
  const textOf = (r: EvalRecord) => r.record.text ?? JSON.stringify(r.record.payload ?? null);
  const records = cited.map((r) => {
    const text = textOf(r);
    return {
      goldId: r.goldId,
      kind: r.record.kind,
      ...((r.actor ?? r.record.userId) ? { speaker: (r.actor ?? r.record.userId) as string } : {}),
      observedAt: r.record.observedAt,
      text: text.length > MAX_RECORD_CHARS ? `${text.slice(0, MAX_RECORD_CHARS)}…` : text,
    };
  });
  const structure = (note as { structure?: unknown }).structure;
  return {
    caseId: evalCase.caseId,
    note,
    ...(structure !== undefined && structure !== null ? { structure } : {}),
    records,
    flags: rubricFlags(note.claim, cited.map(textOf)),
  };
}
