import { describe, expect, it } from 'vitest';
import { getNoteHistory, listNotes, verifyAuditChain } from '../../../src/db/index.ts';
import { eraseSubjectNotes } from '../../../src/erasure/notes.ts';
import { eraseArchiveObjects } from '../../../src/erasure/objects.ts';
import { scrubSubjectData, verifyErasure } from '../../../src/erasure/scrub.ts';
import { finishErasure, prepareErasure } from '../../../src/erasure/work.ts';
import {
  archiveRecords,
  consolidate,
  freshTenantId,
  portsForThisFile,
  preferenceSession,
} from '../../helpers/use-cases.ts';

const ports = portsForThisFile();

const ALICE = 'Please always show me reports as a table, not prose.';
const BOB = 'Please always send me invoices in euros, not dollars.';

describe('erase a subject', () => {
  it("leaves nothing of the subject in the archive or the note store, and keeps other users' notes", async () => {
    const tenantId = freshTenantId('erase');
    // One archive object holds both users' records, so erasing Alice rewrites it.
    await archiveRecords(ports, [
      ...preferenceSession(tenantId, 'u-alice', ALICE),
      ...preferenceSession(tenantId, 'u-bob', BOB),
    ]);
    await consolidate(ports, tenantId, 'run-1');
    const before = (await listNotes(ports.db, { tenantId, limit: 10 })).notes;
    expect(before.map((n) => n.scope.key).sort()).toEqual(['u-alice', 'u-bob']);
    const bobNote = before.find((n) => n.scope.key === 'u-bob');

    const subject = { tenantId, userId: 'u-alice' };
    const prepared = await prepareErasure(ports, subject);
    expect(prepared).toMatchObject({ objectKeys: [expect.any(String)], records: 3 });
    const notes = await eraseSubjectNotes(ports, subject);
    expect(notes.erased).toHaveLength(1);
    const archive = await eraseArchiveObjects(ports, { ...subject, objectKeys: prepared.objectKeys });
    expect(archive).toEqual({ rewritten: 1, deleted: 0, recordsRemoved: 3, notesRepointed: 1 });
    await scrubSubjectData(ports, subject);

    const scan = await verifyErasure(ports, subject);
    expect(scan).toMatchObject({ clean: true, archive: [], database: [] });
    expect(await finishErasure(ports, subject)).toEqual({ workRowsDeleted: prepared.records + prepared.needles });

    const after = (await listNotes(ports.db, { tenantId, limit: 10 })).notes;
    expect(after.find((n) => n.noteId === bobNote?.noteId)).toMatchObject({ status: 'active', claim: bobNote?.claim });
    const bobEvidence = after.find((n) => n.noteId === bobNote?.noteId)?.evidence ?? [];
    expect(bobEvidence.every((e) => !prepared.objectKeys.includes(e.objectKey))).toBe(true);
    const erased = await getNoteHistory(ports.db, { tenantId, noteId: notes.erased[0] as string });
    expect(erased.versions.every((v) => !v.claim.includes('table'))).toBe(true);
    expect((await verifyAuditChain(ports.db, tenantId)).ok).toBe(true);
  });

  it('erasing again finds nothing more to do', async () => {
    const tenantId = freshTenantId('erase-twice');
    await archiveRecords(ports, preferenceSession(tenantId, 'u-alice', ALICE));
    await consolidate(ports, tenantId, 'run-1');
    const subject = { tenantId, userId: 'u-alice' };
    const first = await prepareErasure(ports, subject);
    await eraseSubjectNotes(ports, subject);
    expect(await eraseArchiveObjects(ports, { ...subject, objectKeys: first.objectKeys })).toMatchObject({
      deleted: 1,
    });
    await scrubSubjectData(ports, subject);
    await finishErasure(ports, subject);

    const again = await prepareErasure(ports, subject);
    expect(again).toMatchObject({ objectKeys: [], records: 0 });
    expect(await eraseArchiveObjects(ports, { ...subject, objectKeys: first.objectKeys })).toEqual({
      rewritten: 0,
      deleted: 0,
      recordsRemoved: 0,
      notesRepointed: 0,
    });
    expect(await verifyErasure(ports, subject)).toMatchObject({ clean: true });
  });
});
