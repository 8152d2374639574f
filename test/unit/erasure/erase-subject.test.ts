import { describe, expect, it } from 'vitest';
import {
  applyNoteBatch,
  getNoteHistory,
  insertCachedEmbeddings,
  listNotes,
  selectCachedEmbeddings,
  verifyAuditChain,
  withTenant,
} from '../../../src/db/index.ts';
import { textHash } from '../../../src/embeddings/cached.ts';
import { eraseSubjectNotes } from '../../../src/erasure/notes.ts';
import { eraseArchiveObjects } from '../../../src/erasure/objects.ts';
import { scrubSubjectData, verifyErasure } from '../../../src/erasure/scrub.ts';
import { finishErasure, prepareErasure } from '../../../src/erasure/work.ts';
import { tenantEmbedder } from '../../../src/record-index/embedding-cache.ts';
import { archivedRecords } from '../../helpers/erasure-search.ts';
import { createOp } from '../../helpers/notes.ts';
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
    const scrubbed = await scrubSubjectData(ports, subject);

    const scan = await verifyErasure(ports, subject);
    expect(scan).toMatchObject({ clean: true, archive: [], database: [] });
    expect(await finishErasure(ports, subject)).toEqual({
      workRowsDeleted: prepared.records + prepared.needles + (scrubbed.claimsScrubbed ?? 0),
    });

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

  it('deletes the cached vectors of every claim it scrubs, older versions of notes that stay too, and its scan checks them', async () => {
    const tenantId = freshTenantId('erase-cache');
    await archiveRecords(ports, [
      ...preferenceSession(tenantId, 'u-alice', ALICE),
      ...preferenceSession(tenantId, 'u-bob', BOB),
    ]);
    await consolidate(ports, tenantId, 'run-1');
    const all = await archivedRecords(ports.archive, tenantId);
    const ref = (userId: string) => {
      const r = all.find((x) => x.record.userId === userId && x.record.kind === 'user_message');
      return {
        recordId: r?.record.id ?? '',
        objectKey: r?.objectKey ?? '',
        line: r?.line ?? 0,
        contentHash: r?.contentHash ?? '',
      };
    };
    // A note whose first version paraphrased both users and whose current version cites only Bob.
    const noteId = 'note-paraphrase';
    const [older, current] = ['Reports about invoices are wanted as tables.', 'Invoice reports go out as tables.'];
    await applyNoteBatch(ports.db, {
      tenantId,
      runId: 'run-old',
      batchNo: 0,
      actor: 'test',
      ops: [
        createOp(noteId, {
          claim: older,
          evidence: [ref('u-alice'), ref('u-bob')],
          scope: { level: 'tenant', key: tenantId },
        }),
      ],
    });
    await applyNoteBatch(ports.db, {
      tenantId,
      runId: 'run-old',
      batchNo: 1,
      actor: 'test',
      ops: [
        {
          op: 'newVersion',
          action: 'revise',
          noteId,
          expectedVersion: 1,
          reason: 'only one user',
          changes: { claim: current, evidence: [ref('u-bob')] },
        },
      ],
    });
    // Both claims were embedded through the tenant's cache.
    await tenantEmbedder(ports.embedder, ports.db, tenantId).embed([older, current], { kind: 'passage' });
    const cached = async (text: string) =>
      (
        await withTenant(ports.db, tenantId, (tx) =>
          selectCachedEmbeddings(tx, { model: ports.embedder.name, hashes: [textHash(text)] }),
        )
      ).size;
    expect(await cached(older)).toBe(1);

    const subject = { tenantId, userId: 'u-alice' };
    const prepared = await prepareErasure(ports, subject);
    await eraseSubjectNotes(ports, subject);
    await eraseArchiveObjects(ports, { ...subject, objectKeys: prepared.objectKeys });
    const scrubbed = await scrubSubjectData(ports, subject);
    expect(scrubbed.olderVersionsScrubbed).toBeGreaterThanOrEqual(1);
    expect(await cached(older)).toBe(0);
    expect(await cached(current)).toBe(1);
    expect(await verifyErasure(ports, subject)).toMatchObject({ clean: true });

    // The scan finds such a vector if one is left (or written again).
    const [vector] = await ports.embedder.embed([older]);
    await withTenant(ports.db, tenantId, (tx) =>
      insertCachedEmbeddings(tx, {
        tenantId,
        model: ports.embedder.name,
        items: [{ hash: textHash(older), embedding: vector as number[] }],
      }),
    );
    const scan = await verifyErasure(ports, subject);
    expect(scan.clean).toBe(false);
    expect(scan.database).toEqual([{ store: 'embedding_cache', count: 1 }]);
  });
});
