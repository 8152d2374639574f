import { describe, expect, it } from 'vitest';
import type { NoteContent } from '../../../src/contracts/note.ts';
import {
  applyNoteBatch,
  checkRecallProjection,
  listNotes,
  NoteVersionConflictError,
  rebuildRecallProjection,
  updateEmbedding,
  withTenant,
  writeErasedVersions,
  type NoteOp,
} from '../../../src/db/index.ts';
import { recall } from '../../../src/recall/index.ts';
import {
  selectCurrentVectorChannel,
  selectNoteDistances,
  selectTextCandidates,
  selectVectorCandidates,
  type CandidateParams,
  type CandidateRow,
} from '../../../src/recall/queries.ts';
import { rollbackNote } from '../../../src/rollback/note.ts';
import { createOp, freshNoteId, freshTenant } from '../../helpers/notes.ts';
import { portsForThisFile } from '../../helpers/use-cases.ts';
import { unscoped } from '../../../src/db/unscoped.ts';

// The recall projection (migration 0013) against the note store it is derived from, on PGlite:
// after every kind of write, what recall can read is exactly the store's current, active, valid notes.

const ports = portsForThisFile();
const NOW = new Date('2026-06-01T00:00:00.000Z');
let batchNo = 0;

async function commit(tenantId: string, ops: NoteOp[]): Promise<void> {
  await applyNoteBatch(
    ports.db,
    { tenantId, runId: 'run-projection', batchNo: batchNo++, actor: 'test', ops },
    () => NOW,
  );
}

async function note(claim: string, content: Partial<NoteContent> = {}, embed = true): Promise<NoteOp> {
  const [embedding] = await ports.embedder.embed([claim]);
  return { ...createOp(freshNoteId(), { claim, ...content }), ...(embed ? { embedding } : {}) } as NoteOp;
}

/** What the note store says recall may return now: current, active versions valid at NOW. */
async function storeCurrent(tenantId: string): Promise<string[]> {
  const { notes } = await listNotes(ports.db, { tenantId, status: 'active', limit: 1000 });
  const at = NOW.getTime();
  return notes
    .filter((n) => Date.parse(n.validFrom) <= at && (n.validUntil === null || Date.parse(n.validUntil) > at))
    .map((n) => `${n.noteId}@${n.version}`)
    .sort();
}

/** Current-time read parameters for the tenant, judged at NOW. */
function currentParams(tenantId: string, queryVector: number[], queryText: string, limit: number): CandidateParams {
  return { tenantId, at: NOW.toISOString(), pointInTime: false, scopes: undefined, queryVector, queryText, limit };
}

/** Everything recall's reads return for the tenant: the exact vector read and a text read, both with a large limit. */
async function recallable(tenantId: string, text = ''): Promise<{ vector: string[]; text: string[] }> {
  const [queryVector] = await ports.embedder.embed(['anything']);
  const p = currentParams(tenantId, queryVector as number[], text, 1000);
  const key = (r: { version: { noteId: string; version: number } }) => `${r.version.noteId}@${r.version.version}`;
  return withTenant(ports.db, tenantId, async (tx) => ({
    vector: (await selectVectorCandidates(tx, p, true)).map(key).sort(),
    text: (await selectTextCandidates(tx, p)).map(key).sort(),
  }));
}

/** Of the given versions, those the store holds a vector for (read as the owner, from note_versions). */
async function embedded(tenantId: string, keys: string[]): Promise<string[]> {
  const { rows } = await unscoped(ports.db).query(
    `SELECT note_id || '@' || version AS key FROM note_versions
      WHERE tenant_id = $1 AND embedding IS NOT NULL AND note_id || '@' || version = ANY($2::text[])`,
    [tenantId, keys],
  );
  return rows.map((r) => (r as { key: string }).key).sort();
}

/** The vector channel returns exactly the store's current, active, valid, embedded notes, and the check finds no drift. */
async function expectConsistent(tenantId: string): Promise<void> {
  expect((await recallable(tenantId)).vector).toEqual(await embedded(tenantId, await storeCurrent(tenantId)));
  expect(await checkRecallProjection(ports.db, { tenantId, at: NOW.toISOString() })).toMatchObject({
    missing: 0,
    extra: 0,
  });
}

const ask = (tenantId: string, query: string) =>
  recall(ports.db, ports.embedder, { tenantId, query, k: 10 }, { now: () => NOW });

describe('recall projection', () => {
  it('after a commit holds the current active versions: a revision replaces, a retirement removes', async () => {
    const t = freshTenant();
    const [kept, revised, retired] = await Promise.all([
      note('Invoices are exported as CSV every night.'),
      note('Reports use metric units.'),
      note('The staging server is called bluebird.'),
    ]);
    await commit(t, [kept, revised, retired]);
    await expectConsistent(t);
    await commit(t, [
      {
        op: 'newVersion',
        action: 'revise',
        noteId: revised.noteId,
        expectedVersion: 1,
        changes: { claim: 'Reports use metric units, except altitude in feet.' },
        reason: 'correction',
      },
      { op: 'newVersion', action: 'retire', noteId: retired.noteId, expectedVersion: 1, reason: 'obsolete' },
    ]);
    await expectConsistent(t);
    const current = await storeCurrent(t);
    expect(current).toEqual([`${kept.noteId}@1`, `${revised.noteId}@2`].sort());
    expect((await ask(t, 'staging server bluebird')).notes.map((n) => n.noteId)).not.toContain(retired.noteId);
    expect((await ask(t, 'altitude in feet')).notes.map((n) => [n.noteId, n.version])).toContainEqual([
      revised.noteId,
      2,
    ]);
  });

  it('a failed batch leaves the projection as it was; a note rollback restores the earlier version', async () => {
    const t = freshTenant();
    const op = await note('Deploys happen on Tuesdays.');
    await commit(t, [op]);
    const revise = (expectedVersion: number): NoteOp => ({
      op: 'newVersion',
      action: 'revise',
      noteId: op.noteId,
      expectedVersion,
      changes: { claim: 'Deploys happen on Thursdays.' },
      reason: 'schedule changed',
    });
    await commit(t, [revise(1)]);
    // A stale expected version fails the whole batch, after its first op was planned: nothing of it stays.
    const fresh = await note('A note the failed batch tried to create.');
    await expect(commit(t, [fresh, revise(1)])).rejects.toBeInstanceOf(NoteVersionConflictError);
    expect(await storeCurrent(t)).toEqual([`${op.noteId}@2`]);
    await expectConsistent(t);

    await rollbackNote(ports, {
      tenantId: t,
      noteId: op.noteId,
      toVersion: 1,
      reason: 'wrong day',
      operator: 'test',
      requestId: `rollback-${t}`,
    });
    expect(await storeCurrent(t)).toEqual([`${op.noteId}@3`]);
    await expectConsistent(t);
    expect((await ask(t, 'which day are deploys')).notes.map((n) => n.claim)).toEqual(['Deploys happen on Tuesdays.']);
  });

  it('erasure removes the note from every channel recall reads', async () => {
    const t = freshTenant();
    const [erased, other] = await Promise.all([
      note('Dana Smith prefers calls after five.'),
      note('Calls are logged in the CRM.'),
    ]);
    await commit(t, [erased, other]);
    await writeErasedVersions(ports.db, {
      tenantId: t,
      noteIds: [erased.noteId],
      actor: 'erase/test',
      reason: 'subject erasure',
      at: NOW.toISOString(),
    });
    await expectConsistent(t);
    expect(await recallable(t, 'calls')).toEqual({ vector: [`${other.noteId}@1`], text: [`${other.noteId}@1`] });
  });

  it('an expired note is never returned, and the check removes its row', async () => {
    const t = freshTenant();
    const [expired, future, open] = await Promise.all([
      note('The user flies to Oslo on 2026-05-20.', { validUntil: '2026-05-21T00:00:00.000Z' }),
      note('The user starts the new job in July.', { validFrom: '2026-07-01T00:00:00.000Z' }),
      note('The user likes window seats.'),
    ]);
    await commit(t, [expired, future, open]);
    expect((await recallable(t)).vector).toEqual([`${open.noteId}@1`]);
    expect(await checkRecallProjection(ports.db, { tenantId: t, at: NOW.toISOString() })).toEqual({
      expired: 1,
      rows: 2,
      missing: 0,
      extra: 0,
    });
    await expectConsistent(t);
    expect((await ask(t, 'flies to Oslo')).notes.map((n) => n.noteId)).not.toContain(expired.noteId);
  });

  it('a vector written after the commit reaches the vector channel', async () => {
    const t = freshTenant();
    const op = await note('The warehouse API pages at 200 items.', {}, false);
    await commit(t, [op]);
    expect(await recallable(t, 'warehouse')).toEqual({ vector: [], text: [`${op.noteId}@1`] });
    const [embedding] = await ports.embedder.embed([op.op === 'create' ? op.content.claim : '']);
    await withTenant(ports.db, t, (tx) =>
      updateEmbedding(tx, { noteId: op.noteId, version: 1, embedding: embedding as number[], model: 'test' }),
    );
    expect((await recallable(t)).vector).toEqual([`${op.noteId}@1`]);
    await expectConsistent(t);
  });

  it('the rebuild restores a dropped projection to what the note store derives', async () => {
    const t = freshTenant();
    const ops = await Promise.all(
      ['Alpha uses Postgres.', 'Beta uses Redis.', 'Gamma uses Kafka.'].map((c) => note(c)),
    );
    await commit(t, ops);
    await commit(t, [
      { op: 'newVersion', action: 'retire', noteId: ops[2]!.noteId, expectedVersion: 1, reason: 'gone' },
    ]);
    const before = await ask(t, 'which database does Alpha use');
    // Dropped as the owner would drop it, outside any tenant transaction.
    await unscoped(ports.db).query(`DELETE FROM note_recall WHERE tenant_id = $1`, [t]);
    expect(await recallable(t, 'uses')).toEqual({ vector: [], text: [] });
    expect(await checkRecallProjection(ports.db, { tenantId: t, at: NOW.toISOString() })).toMatchObject({
      rows: 0,
      missing: 2,
    });

    expect(await rebuildRecallProjection(ports.db, { tenantId: t })).toEqual({ removed: 0, inserted: 2 });
    await expectConsistent(t);
    expect((await ask(t, 'which database does Alpha use')).notes).toEqual(before.notes);
  });

  it('orders by half-precision vectors and returns every distance in full precision', async () => {
    const t = freshTenant('half');
    const claims = ['Invoices export as CSV.', 'Refunds need approval.', 'Exports run nightly.', 'Seats by the aisle.'];
    await commit(t, await Promise.all(claims.map((c) => note(c))));
    const [queryVector] = await ports.embedder.embed(['invoice exports']);
    const p = currentParams(t, queryVector as number[], 'exports', 50);
    const plan = { efSearch: 40, dimension: p.queryVector.length, exactUpTo: 2000 };
    const vector = `[${p.queryVector.join(',')}]`;
    const { reads, full, half, column } = await withTenant(ports.db, t, async (tx) => {
      const distances = async (sql: string) =>
        new Map(
          (await tx.query(sql, [t, vector])).rows.map((r) => [
            (r as { note_id: string }).note_id,
            (r as { d: number }).d,
          ]),
        );
      const rows = (list: CandidateRow[]) => list.map((r) => [r.version.noteId, r.distance] as const);
      const keys = (await selectTextCandidates(tx, { ...p, queryVector: null })).map((r) => r.version);
      return {
        reads: {
          graph: rows(await selectVectorCandidates(tx, p, false)),
          exact: rows(await selectVectorCandidates(tx, p, true)),
          text: rows(await selectTextCandidates(tx, p)),
          channelExact: rows((await selectCurrentVectorChannel(tx, p, { ...plan, path: 'exact' })).rows),
          channelGraph: rows((await selectCurrentVectorChannel(tx, p, { ...plan, path: 'hnsw' })).rows),
          known: [...(await selectNoteDistances(tx, t, p.queryVector, keys))].map(
            ([k, d]) => [k.split('\u0000')[0]!, d] as const,
          ),
        },
        full: await distances(
          `SELECT note_id, (embedding <=> $2::vector)::float8 AS d FROM note_versions WHERE tenant_id = $1`,
        ),
        half: await distances(
          `SELECT note_id, (embedding <=> $2::vector::halfvec)::float8 AS d FROM note_recall WHERE tenant_id = $1`,
        ),
        column: (
          await tx.query(
            `SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'note_recall'::regclass AND attname = 'embedding'`,
          )
        ).rows[0] as { t: string },
      };
    });
    expect(column.t).toBe(`halfvec(${p.queryVector.length})`);
    // The two precisions give different distances for these notes, so the reads below tell them apart.
    expect([...full].some(([id, d]) => d !== half.get(id))).toBe(true);
    for (const [read, rows] of Object.entries(reads)) {
      expect(rows.length, read).toBeGreaterThan(0);
      for (const [id, d] of rows) expect(d, `${read} ${id}`).toBe(full.get(id));
    }
    expect(reads.exact.map(([id]) => id)).toEqual([...full].sort((a, b) => a[1] - b[1]).map(([id]) => id));
  });

  it("never returns another tenant's rows, even with the tenant predicate removed", async () => {
    const a = freshTenant('a');
    const b = freshTenant('b');
    await commit(a, [await note('Tenant A exports invoices as CSV.')]);
    await commit(b, [await note('Tenant B exports invoices as PDF.')]);
    const [queryVector] = await ports.embedder.embed(['invoices export']);
    const p = currentParams(b, queryVector as number[], 'invoices', 50);
    const rows = await withTenant(ports.db, b, async (tx) => [
      ...(await selectVectorCandidates(tx, p, false, { tenantPredicate: false })),
      ...(await selectVectorCandidates(tx, p, true, { tenantPredicate: false })),
      ...(await selectTextCandidates(tx, p, { tenantPredicate: false })),
    ]);
    expect(rows.length).toBe(3);
    expect(new Set(rows.map((r) => r.version.tenantId))).toEqual(new Set([b]));
    // Negative control: the owner, outside row-level security, sees both tenants in the projection.
    const { rows: all } = await unscoped(ports.db).query(
      `SELECT DISTINCT tenant_id FROM note_recall WHERE tenant_id = ANY($1)`,
      [[a, b]],
    );
    expect(all).toHaveLength(2);
  });
});
