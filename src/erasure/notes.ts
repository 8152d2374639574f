import { validateProposal } from '../../policies/validation.ts';
import type { Proposal } from '../contracts/episode.ts';
import type { EvidenceRef, NoteVersion } from '../contracts/note.ts';
import {
  applyNoteBatch,
  selectErasureOutcome,
  selectNotesTouchingSubject,
  withTenant,
  writeErasedVersions,
  type NoteOp,
} from '../db/index.ts';
import { resolveEvidence } from '../episodes/episodes.ts';
import { nowOf, SILENT, type Ports, type Progress } from '../ports.ts';
import { evidenceOp, shortHash } from './evidence-op.ts';
import { subjectWork, type SubjectInput } from './work.ts';

export interface NotesErasure {
  /** Notes whose claim could not stand without the subject: now 'erased', every version scrubbed. */
  erased: string[];
  /** Notes that kept their claim on the remaining (other users') evidence, re-validated. */
  revalidated: string[];
}

/**
 * Notes citing the subject's records, scoped to them or quoting them: a note keeps its claim
 * only if the remaining evidence passes validation on its own; otherwise it is erased.
 */
export async function eraseSubjectNotes(
  ports: Pick<Ports, 'db' | 'archive' | 'clock'>,
  input: SubjectInput,
  progress: Progress = SILENT,
): Promise<NotesErasure> {
  const { subject, actor, read } = subjectWork(ports.db, input);
  const records = new Set(await read('record'));
  const needles = await read('needle');
  const notes = await withTenant(ports.db, input.tenantId, (tx) =>
    selectNotesTouchingSubject(tx, { recordIds: [...records], userId: input.userId, needles }),
  );
  const erase: string[] = [];
  const ops: NoteOp[] = [];
  for (const note of notes) {
    progress.beat({ noteId: note.noteId });
    const remaining = note.evidence.filter((e) => !records.has(e.recordId));
    const aboutSubject =
      (note.scope.level === 'user' && note.scope.key === input.userId) || needles.some((n) => note.claim.includes(n));
    // Only older versions cite the subject: the note stands as it is, and scrubbing clears those versions.
    if (!aboutSubject && remaining.length === note.evidence.length) continue;
    if (!aboutSubject && (await survives(ports, input.tenantId, note, remaining))) {
      const why = 'erasure: evidence from erased records removed; re-validated on the remaining evidence';
      ops.push(evidenceOp(note, remaining, why));
    } else erase.push(note.noteId);
  }
  await writeErasedVersions(ports.db, {
    tenantId: input.tenantId,
    noteIds: erase,
    actor,
    reason: `erasure of a data subject (${subject.slice(0, 16)})`,
    at: nowOf(ports).toISOString(),
  });
  if (ops.length > 0) {
    await applyNoteBatch(
      ports.db,
      { tenantId: input.tenantId, runId: `${actor}/revalidate/${shortHash(ops)}`, batchNo: 0, actor, ops },
      ports.clock,
      { lockHolder: actor },
    );
  }
  // Read back rather than counted here, so a retried attempt still reports what the first did.
  return withTenant(ports.db, input.tenantId, (tx) => selectErasureOutcome(tx, { actor }));
}

/** Re-checks a note on the evidence that remains once the subject's records are gone. */
async function survives(
  ports: Pick<Ports, 'archive'>,
  tenantId: string,
  note: NoteVersion,
  remaining: EvidenceRef[],
): Promise<boolean> {
  if (remaining.length === 0) return false;
  const resolved = await resolveEvidence(ports.archive, remaining, []);
  const content = {
    scope: note.scope,
    kind: note.kind,
    claim: note.claim,
    evidence: remaining,
    sourceKind: note.sourceKind,
    confidence: note.confidence,
    importance: note.importance,
    validFrom: note.validFrom,
    validUntil: note.validUntil,
    sourceCount: note.sourceCount,
    lastConfirmedAt: note.lastConfirmedAt,
    contradictedAt: note.contradictedAt,
  };
  return validateProposal({ content } as Proposal, tenantId, resolved).verdict === 'accept';
}
