import type { Db } from '../db/index.ts';
import { insertMemoryUsage } from '../db/index.ts';
import { UNTRUSTED_KINDS } from '../../policies/untrusted/trust.ts';
import type { ParsedRecallRequest, RecalledNote, RecalledRecord } from './contract.ts';
import type { AssembledItem } from './assemble.ts';
import type { FusedSelection } from './fuse.ts';

/** The selected notes, notes first in the answer, in their fused order. */
export function recalledNotes(selection: FusedSelection): RecalledNote[] {
  return asRecalledNotes(selection.items.flatMap((i) => (i.type === 'note' ? [i.note] : [])));
}

/** Assembled notes as the answer shows them, ranked in the given order. */
export function asRecalledNotes(notes: readonly AssembledItem[]): RecalledNote[] {
  return notes.map((item, i) => ({
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
    conflicts: item.conflicts ?? [],
    contradictedAt: item.version.contradictedAt ?? null,
    sourceKind: item.version.sourceKind,
    // Validation lets tool and retrieved records alone back only tool facts and inferences.
    toolDerived: item.version.sourceKind === 'tool_fact',
    ...(item.vectorPending ? { vectorPending: true } : {}),
  }));
}

/** The selected raw records, in their fused order, each with the evidence ref that cites it. */
export function recalledRecords(selection: FusedSelection): RecalledRecord[] {
  const records = selection.items.flatMap((i) => (i.type === 'record' ? [i.record] : []));
  return records.map(({ row, score, relevance, why, tokens }, i) => ({
    rank: i + 1,
    recordId: row.recordId,
    evidence: { recordId: row.recordId, objectKey: row.objectKey, line: row.line, contentHash: row.contentHash },
    speaker: row.speaker,
    userId: row.userId,
    agentId: row.agentId,
    sessionId: row.sessionId,
    kind: row.kind,
    observedAt: row.observedAt,
    text: row.text,
    untrusted: UNTRUSTED_KINDS.has(row.kind),
    score,
    relevance,
    why,
    tokens,
  }));
}

/** With a task id, the returned versions are logged as memory usage (idempotently); returns the rows written. */
export async function logUsage(db: Db, req: ParsedRecallRequest, notes: RecalledNote[], now: Date): Promise<number> {
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
