import { contradict } from '../../../policies/confidence.ts';
import { contentTokens, recordText } from '../../../policies/text.ts';
import type { Finding, Proposal } from '../../contracts/episode.ts';
import type { NoteContent } from '../../contracts/note.ts';
import type { ActiveNote } from '../types.ts';

/** A recalled note that preceded a failure or a correction loses confidence, citing what went wrong. */
export function contradictNote(f: Finding, note: ActiveNote | undefined, now: Date): Proposal[] {
  if (!note) return [];
  // Replaying a failure the note already cites (tonight's run over last night's records) is not a new contradiction.
  const cited = new Set(note.content.evidence.map((e) => e.recordId));
  if (f.evidence.every((e) => cited.has(e.ref.recordId))) return [];
  if (!troubleConcerns(f, note)) return [];
  const content: NoteContent = {
    ...note.content,
    confidence: contradict(note.content.confidence),
    contradictedAt: now.toISOString(),
    evidence: [...note.content.evidence, ...f.evidence.map((e) => e.ref)],
  };
  // The reason names the records, never their text: it is stored in the audit log and the run's work.
  const reason = `contradicted by records ${f.evidence.map((e) => e.ref.recordId).join(', ')}`;
  return [{ op: 'revise', noteId: note.noteId, expectedVersion: note.version, content, finding: f.type, reason }];
}

/** Words a failure or correction must share with a recalled note's claim before it counts against the note. @default 2 */
export const RELATED_TROUBLE_MIN_SHARED_WORDS = 2;

/**
 * A task that went wrong after recalling several notes says nothing about the notes that have
 * nothing to do with what went wrong: a refund correction does not contradict a note about CRM
 * page sizes that happened to be recalled for the same task. Only a note whose claim shares words
 * with the failure or the correction is contradicted.
 */
function troubleConcerns(f: Finding, note: ActiveNote): boolean {
  const trouble = f.evidence
    .filter((e) => e.record.kind !== 'memory_used')
    .map((e) => recordText(e.record))
    .join(' ');
  const troubleWords = new Set(contentTokens(trouble));
  const shared = new Set(contentTokens(note.content.claim).filter((t) => troubleWords.has(t)));
  return shared.size >= RELATED_TROUBLE_MIN_SHARED_WORDS;
}
