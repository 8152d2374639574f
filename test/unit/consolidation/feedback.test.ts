import { describe, expect, it } from 'vitest';
import { getNoteHistory, listNotes } from '../../../src/db/index.ts';
import { FeedbackTargetError, recordFeedback } from '../../../src/feedback/record-feedback.ts';
import { CONTRADICTION_FACTOR } from '../../../policies/confidence.ts';
import {
  archiveRecords,
  consolidate,
  freshTenantId,
  portsForThisFile,
  preferenceSession,
} from '../../helpers/use-cases.ts';

// Agents' feedback on a recalled note (POST /v1/feedback), on PGlite and a file archive: the next
// consolidation run reads "wrong" as a contradiction and "helped" as a success after recall, each
// citing the archived feedback record, and a later run does not count the same feedback again.

const ports = portsForThisFile();

async function learnedPreference(tenantId: string) {
  await archiveRecords(ports, preferenceSession(tenantId, 'u-alice'));
  await consolidate(ports, tenantId, 'run-1');
  const [note] = (await listNotes(ports.db, { tenantId, limit: 10 })).notes;
  expect(note).toMatchObject({ version: 1, status: 'active' });
  return note!;
}

const history = async (tenantId: string, noteId: string) =>
  (await getNoteHistory(ports.db, { tenantId, noteId })).versions;

describe('feedback on a recalled note feeds the next consolidation run', () => {
  it('"wrong" lowers the confidence as a contradiction, citing the feedback record, once', async () => {
    const tenantId = freshTenantId('fb-wrong');
    const note = await learnedPreference(tenantId);
    const fb = await recordFeedback(ports, { tenantId, noteId: note.noteId, verdict: 'wrong', taskId: 'task-9' });
    expect(fb).toMatchObject({ version: 1, verdict: 'wrong' });

    await consolidate(ports, tenantId, 'run-2');
    const after = await history(tenantId, note.noteId);
    expect(after).toHaveLength(2);
    expect(after[1]!.confidence).toBeCloseTo(note.confidence * CONTRADICTION_FACTOR, 6);
    expect(after[1]!.contradictedAt).toBe(fb.at);
    expect(after[1]!.evidence.map((e) => e.recordId)).toContain(fb.recordId);

    await consolidate(ports, tenantId, 'run-3');
    expect(await history(tenantId, note.noteId)).toHaveLength(2);
  });

  it('"wrong" often enough retires the note, as repeated contradictions do', async () => {
    const tenantId = freshTenantId('fb-retire');
    const note = await learnedPreference(tenantId);
    for (let i = 0; i < 4; i++) await recordFeedback(ports, { tenantId, noteId: note.noteId, verdict: 'wrong' });
    await consolidate(ports, tenantId, 'run-2');
    const [current] = (await listNotes(ports.db, { tenantId, status: 'retired', limit: 10 })).notes;
    expect(current?.noteId).toBe(note.noteId);
  });

  it('"helped" confirms the note as a success after recall: one more source, more confidence', async () => {
    const tenantId = freshTenantId('fb-helped');
    const note = await learnedPreference(tenantId);
    const fb = await recordFeedback(ports, { tenantId, noteId: note.noteId, verdict: 'helped' });
    await consolidate(ports, tenantId, 'run-2');
    const after = await history(tenantId, note.noteId);
    expect(after).toHaveLength(2);
    expect(after[1]).toMatchObject({ sourceCount: note.sourceCount + 1, lastConfirmedAt: fb.at, contradictedAt: null });
    expect(after[1]!.confidence).toBeGreaterThan(note.confidence);
    expect(after[1]!.evidence.map((e) => e.recordId)).toContain(fb.recordId);
  });

  it('refuses feedback on a note the tenant does not have, or on a version it never had', async () => {
    const tenantId = freshTenantId('fb-missing');
    const note = await learnedPreference(tenantId);
    await expect(recordFeedback(ports, { tenantId, noteId: 'no-such-note', verdict: 'wrong' })).rejects.toThrow(
      FeedbackTargetError,
    );
    await expect(
      recordFeedback(ports, { tenantId: freshTenantId('other'), noteId: note.noteId, verdict: 'wrong' }),
    ).rejects.toThrow(/no note/);
    await expect(
      recordFeedback(ports, { tenantId, noteId: note.noteId, verdict: 'helped', version: 7 }),
    ).rejects.toThrow(/version: .* has no version 7/);
  });
});
