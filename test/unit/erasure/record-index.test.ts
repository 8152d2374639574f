import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { embedRunClaims } from '../../../src/consolidation/embed-run.ts';
import { insertIndexedRecords, listNotes, withTenant } from '../../../src/db/index.ts';
import { textHash } from '../../../src/embeddings/cached.ts';
import { eraseSubjectNotes } from '../../../src/erasure/notes.ts';
import { eraseArchiveObjects } from '../../../src/erasure/objects.ts';
import { scrubSubjectData, verifyErasure } from '../../../src/erasure/scrub.ts';
import { prepareErasure } from '../../../src/erasure/work.ts';
import { indexRecords } from '../../../src/record-index/index.ts';
import { matchText, RECORD_VECTOR_FORM, withTurnBefore } from '../../../policies/record-recall.ts';
import { indexedRecordRow } from '../../helpers/record-index.ts';
import {
  archiveRecords,
  consolidate,
  freshTenantId,
  portsForThisFile,
  preferenceSession,
} from '../../helpers/use-cases.ts';

// Erasure covers the raw-record index and the embedding cache: the subject's rows go, the
// scan checks both tables, and indexing again brings back only the other users' records.
// The agent's reply is the same words in both sessions, but each reply's vector takes in the
// user's message before it: the one after Alice's goes with hers, the one after Bob's stays.

const ports = portsForThisFile();

const ALICE = 'My locker code is hidden under the blue mat in hall 3.';
const BOB = 'Please send every invoice to the finance team in euros.';

const HASH = 'a'.repeat(64);

const saying = (records: RawRecordInput[], text: string): RawRecordInput[] =>
  records.map((r) => (r.kind === 'user_message' ? { ...r, text } : r));

const cachedHashes = (tenantId: string): Promise<string[]> =>
  withTenant(ports.db, tenantId, async (tx) =>
    (await tx.query(`SELECT content_hash FROM embedding_cache`)).rows.map(
      (r) => (r as { content_hash: string }).content_hash,
    ),
  );

async function indexedTexts(tenantId: string): Promise<{ texts: string[]; cached: number }> {
  return withTenant(ports.db, tenantId, async (tx) => {
    const texts = (await tx.query(`SELECT text FROM record_index ORDER BY text`)).rows as Array<{ text: string }>;
    const cached = (await tx.query(`SELECT content_hash FROM embedding_cache`)).rows.length;
    return { texts: texts.map((r) => r.text), cached };
  });
}

describe('erasure and the record index', () => {
  it("deletes the subject's indexed records and cached vectors, the scan checks both, reindexing keeps others'", async () => {
    const tenantId = freshTenantId('erase-index');
    await archiveRecords(ports, [
      ...saying(preferenceSession(tenantId, 'u-alice'), ALICE),
      ...saying(preferenceSession(tenantId, 'u-bob'), BOB),
    ]);
    await indexRecords(ports, { tenantId });
    expect((await indexedTexts(tenantId)).texts).toContain(ALICE);
    const subject = { tenantId, userId: 'u-alice' };
    const prepared = await prepareErasure(ports, subject);

    const dirty = await verifyErasure(ports, subject);
    expect(dirty.database.map((f) => f.store)).toEqual(expect.arrayContaining(['record_index', 'embedding_cache']));

    await eraseSubjectNotes(ports, subject);
    await eraseArchiveObjects(ports, { ...subject, objectKeys: prepared.objectKeys });
    const scrubbed = await scrubSubjectData(ports, subject);
    expect(scrubbed.recordIndexRowsDeleted).toBe(4);
    expect(scrubbed.embeddingCacheRowsDeleted).toBe(2); // Alice's message and the reply after it
    expect(await verifyErasure(ports, subject)).toMatchObject({ clean: true, database: [] });
    const replyAfter = (userId: string, said: string) =>
      textHash(
        withTurnBefore(matchText('assistant', 'Understood. | Month | Total |'), {
          recordId: 'before',
          speaker: userId,
          text: said,
        }),
      );
    expect(await cachedHashes(tenantId)).toContain(replyAfter('u-bob', BOB));
    expect(await cachedHashes(tenantId)).not.toContain(replyAfter('u-alice', ALICE));

    await indexRecords(ports, { tenantId });
    const after = await indexedTexts(tenantId);
    expect(after.texts).toContain(BOB);
    expect(after.texts.join(' ')).not.toContain('locker');
    expect(after.cached).toBe(2); // Bob's message and the reply after it: nothing embedded again for Alice
    expect(await verifyErasure(ports, subject)).toMatchObject({ clean: true });
  });

  it("drops another user's record whose vector took in the subject's words as the turn before, and indexes it again without them", async () => {
    const tenantId = freshTenantId('erase-turn');
    const [alice] = saying(preferenceSession(tenantId, 'u-alice'), ALICE) as [RawRecordInput];
    const later = Date.parse(alice.observedAt) + 5000;
    const bob = { ...alice, id: ulid(later), observedAt: new Date(later).toISOString(), userId: 'u-bob', text: BOB };
    await archiveRecords(ports, [alice, bob]);
    await indexRecords(ports, { tenantId });
    const bobAfterAlice = textHash(
      withTurnBefore(`u-bob: ${BOB}`, { recordId: alice.id, speaker: 'u-alice', text: ALICE }),
    );
    expect(await cachedHashes(tenantId)).toContain(bobAfterAlice);

    const subject = { tenantId, userId: 'u-alice' };
    const prepared = await prepareErasure(ports, subject);
    await eraseSubjectNotes(ports, subject);
    await eraseArchiveObjects(ports, { ...subject, objectKeys: prepared.objectKeys });
    // The scan counts Bob's row with Alice's: its vector holds her words.
    expect((await verifyErasure(ports, subject)).database).toContainEqual({ store: 'record_index', count: 2 });
    const scrubbed = await scrubSubjectData(ports, subject);
    expect(scrubbed.embeddingCacheRowsDeleted).toBe(2);
    expect(await cachedHashes(tenantId)).not.toContain(bobAfterAlice);
    await indexRecords(ports, { tenantId });
    // Bob's message alone now: nothing said before it is left.
    expect(await cachedHashes(tenantId)).toEqual([textHash(`u-bob: ${BOB}`)]);
    expect(await verifyErasure(ports, subject)).toMatchObject({ clean: true, database: [] });
  });

  it("deletes the cached vectors of the erased notes' claims", async () => {
    const tenantId = freshTenantId('erase-claims');
    await archiveRecords(ports, preferenceSession(tenantId, 'u-alice'));
    await consolidate(ports, tenantId, 'run-1');
    await embedRunClaims(ports, { runId: 'run-1', tenantId, batchNo: 0 });
    const claims = (await listNotes(ports.db, { tenantId, limit: 10 })).notes.map((n) => textHash(n.claim));
    expect(claims.length).toBeGreaterThan(0);
    const cachedClaims = () =>
      withTenant(ports.db, tenantId, async (tx) =>
        (await tx.query(`SELECT content_hash FROM embedding_cache`)).rows
          .map((r) => (r as { content_hash: string }).content_hash)
          .filter((h) => claims.includes(h)),
      );
    expect(await cachedClaims()).toHaveLength(claims.length);

    const subject = { tenantId, userId: 'u-alice' };
    const prepared = await prepareErasure(ports, subject);
    await eraseSubjectNotes(ports, subject);
    await eraseArchiveObjects(ports, { ...subject, objectKeys: prepared.objectKeys });
    const scrubbed = await scrubSubjectData(ports, subject);
    expect(scrubbed.embeddingCacheRowsDeleted).toBeGreaterThanOrEqual(claims.length);
    expect(await cachedClaims()).toEqual([]);
  });

  it("finds and deletes a row whose text told as a note keeps the subject's words, though its text does not", async () => {
    const tenantId = freshTenantId('erase-told');
    await archiveRecords(ports, saying(preferenceSession(tenantId, 'u-alice'), ALICE));
    await indexRecords(ports, { tenantId });
    const told = await withTenant(ports.db, tenantId, async (tx) =>
      (await tx.query(`SELECT told FROM record_index WHERE text = $1`, [ALICE])).rows.map(
        (r) => (r as { told: string }).told,
      ),
    );
    // What recall matches words in is stored with the row: the record told in the third person.
    expect(told).toEqual(["u-alice: u-alice's locker code is hidden under the blue mat in hall 3."]);
    const subject = { tenantId, userId: 'u-alice' };
    const prepared = await prepareErasure(ports, subject);
    await eraseSubjectNotes(ports, subject);
    await eraseArchiveObjects(ports, { ...subject, objectKeys: prepared.objectKeys });
    await scrubSubjectData(ports, subject);
    expect(await verifyErasure(ports, subject)).toMatchObject({ clean: true });

    // A row of another speaker whose stored text is harmless but whose told text quotes the subject.
    await withTenant(ports.db, tenantId, (tx) =>
      insertIndexedRecords(tx, {
        tenantId,
        model: 'test',
        form: RECORD_VECTOR_FORM,
        records: [
          indexedRecordRow(ports.embedder.dimension, {
            recordId: 'r-told-only',
            contentHash: HASH,
            userId: 'u-bob',
            kind: 'tool_result',
            speaker: 'tool',
            text: 'The lookup returned one row.',
            told: `tool: ${ALICE}`,
          }),
        ],
      }),
    );
    const dirty = await verifyErasure(ports, subject);
    expect(dirty.database).toEqual([{ store: 'record_index', count: 1 }]);
    expect((await scrubSubjectData(ports, subject)).recordIndexRowsDeleted).toBe(1);
    expect(await verifyErasure(ports, subject)).toMatchObject({ clean: true, database: [] });
  });
});
