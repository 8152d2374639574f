import { describe, expect, it } from 'vitest';
import { applyNoteBatch, getNoteHistory, getRun, listNotes } from '../../../src/db/index.ts';
import { rollbackNote } from '../../../src/rollback/note.ts';
import { rollbackRun } from '../../../src/rollback/run.ts';
import { createOp, freshNoteId } from '../../helpers/notes.ts';
import {
  archiveRecords,
  consolidate,
  freshTenantId,
  portsForThisFile,
  preferenceSession,
} from '../../helpers/use-cases.ts';

const ports = portsForThisFile();

/** A note with two versions: the claim as first learned, then a revision. */
async function revisedNote(tenantId: string): Promise<string> {
  const noteId = freshNoteId();
  const batch = { tenantId, runId: 'seed', actor: 'consolidate/test' };
  await applyNoteBatch(ports.db, { ...batch, batchNo: 0, ops: [createOp(noteId)] });
  await applyNoteBatch(ports.db, {
    ...batch,
    batchNo: 1,
    ops: [
      {
        op: 'newVersion',
        action: 'revise',
        noteId,
        expectedVersion: 1,
        changes: { claim: 'The user prefers imperial units.' },
        reason: 'a later correction',
      },
    ],
  });
  return noteId;
}

describe('rollback use cases', () => {
  it('roll back a note: writes a new version equal to the target; the same rollback again changes nothing', async () => {
    const tenantId = freshTenantId('rb-note');
    const noteId = await revisedNote(tenantId);
    const request = { tenantId, noteId, toVersion: 1, reason: 'wrong', operator: 'ops', requestId: 'rb-1' };
    expect(await rollbackNote(ports, request)).toEqual({
      noop: false,
      changes: [{ noteId, action: 'rollback', fromVersion: 2, toVersion: 3 }],
      skipped: [],
    });
    const { versions } = await getNoteHistory(ports.db, { tenantId, noteId });
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3]);
    expect(versions[2]?.claim).toBe(versions[0]?.claim);
    expect(await rollbackNote(ports, { ...request, requestId: 'rb-2' })).toEqual({
      noop: true,
      changes: [],
      skipped: [],
    });
    expect((await getNoteHistory(ports.db, { tenantId, noteId })).versions).toHaveLength(3);
  });

  it('roll back a note to a version it never had is a permanent InvalidRollbackTarget', async () => {
    const tenantId = freshTenantId('rb-bad');
    const noteId = await revisedNote(tenantId);
    await expect(
      rollbackNote(ports, { tenantId, noteId, toVersion: 9, reason: 'x', operator: 'ops', requestId: 'r' }),
    ).rejects.toMatchObject({ type: 'InvalidRollbackTarget' });
  });

  it('roll back a run: retires the notes it created and marks the run rolled back; a retry reports the same, a new request is a no-op', async () => {
    const tenantId = freshTenantId('rb-run');
    await archiveRecords(ports, preferenceSession(tenantId, 'u-alice'));
    await consolidate(ports, tenantId, 'run-1');
    const [created] = (await listNotes(ports.db, { tenantId, limit: 10 })).notes;
    const request = { tenantId, runId: 'run-1', reason: 'bad run', operator: 'ops', requestId: 'rr-1' };
    const first = await rollbackRun(ports, request);
    expect(first).toMatchObject({
      noop: false,
      skipped: [],
      changes: [{ noteId: created?.noteId, action: 'retire', fromVersion: 1, toVersion: 2 }],
    });
    expect((await listNotes(ports.db, { tenantId, limit: 10, status: 'retired' })).notes).toHaveLength(1);
    expect((await getRun(ports.db, { tenantId, runId: 'run-1' }))?.status).toBe('rolled_back');
    // The same request again: its batch is already committed, so it reports what it did.
    expect(await rollbackRun(ports, request)).toMatchObject({ noop: false, changes: first.changes });
    expect(await rollbackRun(ports, { ...request, requestId: 'rr-2' })).toMatchObject({
      noop: true,
      changes: [],
      skipped: [{ noteId: created?.noteId, why: 'not_recalled' }],
    });
  });
});
