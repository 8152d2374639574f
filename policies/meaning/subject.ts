import type { RawRecord } from '../../src/contracts/raw-record.ts';
import { normalizePhrase, type NoteSubject } from '../../src/contracts/note-structure.ts';
import { recordText } from '../text.ts';
import { evidenceForms, missingForms } from './normalize.ts';

/**
 * Whether a note's subject is someone or something its evidence shows: the speaker of a cited
 * record, or a name the record mentions. A note about u-erin cannot rest on what u-dan said.
 */

const USER_KINDS = new Set(['user_message', 'user_correction', 'feedback', 'approval']);
const AGENT_KINDS = new Set(['agent_message', 'tool_call']);

const same = (a: string | undefined, b: string) => a !== undefined && normalizePhrase(a) === normalizePhrase(b);

/** A record's words are the user's own (not a tool's output that happens to carry the session's user id). */
function spokenByUser(r: RawRecord): boolean {
  return r.source === 'user' || (r.source === undefined && USER_KINDS.has(r.kind));
}

function spokenByAgent(r: RawRecord): boolean {
  return r.source === 'agent' || (r.source === undefined && AGENT_KINDS.has(r.kind));
}

/** The tool a record is about: its payload's `tool` field. */
export function recordTool(r: RawRecord): string | undefined {
  const payload = r.payload as { tool?: unknown } | undefined;
  return typeof payload?.tool === 'string' ? payload.tool : undefined;
}

function isSpeaker(subject: NoteSubject, r: RawRecord): boolean {
  switch (subject.type) {
    case 'user':
      return spokenByUser(r) && same(r.userId, subject.id);
    case 'agent':
      return spokenByAgent(r) && same(r.agentId, subject.id);
    case 'tool':
      return same(recordTool(r), subject.id);
    case 'entity':
      // A named entity may also be the task type a lesson of several runs is about.
      return (
        (spokenByUser(r) && same(r.userId, subject.id)) ||
        (spokenByAgent(r) && same(r.agentId, subject.id)) ||
        same(r.taskType, subject.id)
      );
  }
}

/** Whether `name` occurs in the record's text or payload (a tool named in an agent's reply, a person in a story). */
export function namedIn(name: string, r: RawRecord): boolean {
  return missingForms(name, evidenceForms(recordText(r))).length === 0;
}

/** Whether some cited record is spoken by the subject or names it. */
export function subjectShown(subject: NoteSubject, cited: readonly RawRecord[]): boolean {
  return cited.some((r) => isSpeaker(subject, r) || namedIn(subject.id, r));
}
