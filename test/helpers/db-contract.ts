import { RECORD_VECTOR_FORM } from '../../policies/record-recall.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyNoteBatch,
  BatchKeyReuseError,
  type Db,
  EmbeddingDimensionMismatchError,
  getNote,
  getNoteHistory,
  getRun,
  insertMemoryUsage,
  insertRun,
  listNotes,
  NoteAlreadyExistsError,
  NoteVersionConflictError,
  PREPARED,
  readStoredEmbeddingDimension,
  runMigrations,
  updateRun,
  verifyAuditChain,
  insertIndexedRecords,
  selectCurrentVersionsByText,
  selectNotesMatching,
  withTenant,
} from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';
import { contentTokens, fullTextQuery } from '../../policies/text.ts';
import { selectTextCandidates, type TextParams } from '../../src/recall/queries.ts';
import { selectRecordTextCandidates } from '../../src/recall/record-queries.ts';
import { indexedRecordRow } from './record-index.ts';
import { createOp, freshNoteId, freshTenant, noteContent } from './notes.ts';

export interface DbContractOptions {
  /** The embedding dimension the factory's database was migrated with. */
  dimension: number;
  /**
   * The same database as its owner (the login that migrates and may alter rows the app role
   * cannot). Absent → the store itself (PGlite's one user owns everything).
   */
  makeOwnerDb?: () => Promise<Db>;
}

const PERMISSION_DENIED = '42501';

async function countRows(db: Db, table: 'note_versions' | 'audit_log' | 'notes', tenantId: string): Promise<number> {
  const { rows } = await withTenant(db, tenantId, (tx) =>
    tx.query(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [tenantId]),
  );
  return (rows[0] as { n: number }).n;
}

/**
 * A statement as the owner with the tenant set (FORCEd row-level security applies to the owner
 * too): what a compromised owner account, not the app role, could do.
 */
async function asOwner(owner: Db, tenantId: string, sql: string, params: unknown[] = []): Promise<void> {
  await unscoped(owner).transaction(async (tx) => {
    await tx.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenantId]);
    await tx.query(sql, params);
  });
}

/** What the full-text channels read a question with: a tenant's current notes and records as of now. */
function textParams(tenantId: string): TextParams {
  return {
    tenantId,
    at: new Date().toISOString(),
    pointInTime: false,
    scopes: undefined,
    queryVector: null,
    queryText: '',
    limit: 10,
  };
}

function batch(tenantId: string, ops: Parameters<typeof applyNoteBatch>[1]['ops'], batchNo = 0, runId = 'run-1') {
  return { tenantId, runId, batchNo, actor: 'consolidate/test', ops };
}

/**
 * The note store's contract, run against every driver: PGlite in the unit project, the real
 * PostgreSQL server in the integration project. `makeDb` returns a migrated, empty-or-shared
 * database; every test uses fresh tenant ids so a long-lived database reruns cleanly.
 */
export function describeDbContract(name: string, makeDb: () => Promise<Db>, options: DbContractOptions): void {
  describe(`note store contract (${name})`, () => {
    let db: Db;
    let owner: Db;
    // Starting PGlite (WASM) and migrating takes seconds, more on a busy machine.
    beforeAll(async () => {
      db = await makeDb();
      owner = options.makeOwnerDb ? await options.makeOwnerDb() : db;
    }, 120_000);
    afterAll(async () => {
      if (owner !== db) await owner?.close();
      await db?.close();
    });

    describe('migrations', () => {
      it('apply a second time without change', async () => {
        const before = await unscoped(db).query(
          `SELECT count(*)::int AS n FROM pg_policies WHERE policyname = 'tenant_isolation'`,
        );
        expect(await runMigrations(owner, { dimension: options.dimension })).toEqual([]);
        const after = await unscoped(db).query(
          `SELECT count(*)::int AS n FROM pg_policies WHERE policyname = 'tenant_isolation'`,
        );
        expect(after.rows).toEqual(before.rows);
      });

      it('create vector(N) embeddings with N from configuration, and refuse another N', async () => {
        expect(await readStoredEmbeddingDimension(db)).toBe(options.dimension);
        const error = await runMigrations(owner, { dimension: options.dimension + 1 }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(EmbeddingDimensionMismatchError);
        expect((error as Error).message).toContain(`vector(${options.dimension})`);
        expect((error as Error).message).toContain(`NOCTURNE_EMBEDDING_DIM is ${options.dimension + 1}`);
      });

      it('FORCE row-level security on every tenant table, read from the catalog', async () => {
        // Every table of the schema but the migration runner's holds tenant rows: a new table
        // without tenant_id, or without FORCEd security, fails here without editing this test.
        const { rows } = await unscoped(db).query(
          `SELECT c.relname AS name, c.relrowsecurity AS enabled, c.relforcerowsecurity AS forced,
                  EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id'
                                                         AND NOT a.attisdropped) AS tenant_column,
                  EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid) AS policy
             FROM pg_class c
            WHERE c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace
              AND c.relname <> 'pgmigrations'
            ORDER BY 1`,
        );
        const tables = rows as Array<{ name: string; enabled: boolean; forced: boolean; tenant_column: boolean }>;
        expect(tables.length).toBeGreaterThanOrEqual(15);
        for (const t of tables)
          expect(t, t.name).toMatchObject({ enabled: true, forced: true, tenant_column: true, policy: true });
      });

      it('FORCE row-level security on the recall projection and on each of its partitions', async () => {
        const { rows } = await unscoped(db).query(
          `SELECT c.relname, c.relrowsecurity AND c.relforcerowsecurity AS forced FROM pg_class c
            WHERE c.relname ~ '^note_recall(_p[0-9]+)?$' AND c.relkind IN ('r', 'p')
              AND c.relnamespace = current_schema()::regnamespace`,
        );
        expect(rows).toHaveLength(65); // the parent and its 64 hash partitions
        expect(rows.every((r) => (r as { forced: boolean }).forced)).toBe(true);
      });
    });

    describe('writes', () => {
      it('create writes version 1 and exactly one audit entry', async () => {
        const tenant = freshTenant();
        const noteId = freshNoteId();
        const result = await applyNoteBatch(db, batch(tenant, [createOp(noteId)]));
        expect(result.changes).toEqual([{ noteId, action: 'create', fromVersion: null, toVersion: 1, auditSeq: 1 }]);
        const note = await getNote(db, { tenantId: tenant, noteId });
        expect(note).toMatchObject({
          noteId,
          version: 1,
          status: 'active',
          claim: noteContent().claim,
          createdByRun: 'run-1',
        });
        const history = await getNoteHistory(db, { tenantId: tenant, noteId });
        expect(history.versions).toHaveLength(1);
        expect(history.audit).toMatchObject([
          { seq: 1, action: 'create', noteId, fromVersion: null, toVersion: 1, actor: 'consolidate/test' },
        ]);
      });

      it('stores a note structure and a session scope, and reads a note without structure as null', async () => {
        const tenant = freshTenant();
        const [withStructure, without] = [freshNoteId(), freshNoteId()];
        const structure = {
          subject: { type: 'user' as const, id: 'u-dan' },
          attribute: 'prefers',
          value: 'aisle seats',
          contrast: 'window seats',
          polarity: 'positive' as const,
          conditions: [{ field: 'task_type', op: 'eq' as const, value: 'booking' }],
          template: 'preference',
        };
        await applyNoteBatch(
          db,
          batch(tenant, [
            createOp(withStructure, { claim: 'u-dan prefers aisle seats over window seats.', structure }),
            createOp(without, { scope: { level: 'session', key: 'sess-7' } }),
          ]),
        );
        expect((await getNote(db, { tenantId: tenant, noteId: withStructure }))?.structure).toEqual(structure);
        const plain = await getNote(db, { tenantId: tenant, noteId: without });
        expect(plain).toMatchObject({ structure: null, scope: { level: 'session', key: 'sess-7' } });
      });

      it('newVersion inserts N+1, keeps version N unchanged, and moves the pointer', async () => {
        const tenant = freshTenant();
        const noteId = freshNoteId();
        await applyNoteBatch(db, batch(tenant, [createOp(noteId)]));
        await applyNoteBatch(
          db,
          batch(
            tenant,
            [
              {
                op: 'newVersion',
                action: 'revise',
                noteId,
                expectedVersion: 1,
                changes: { claim: 'Metric units, except for altitude.' },
                reason: 'correction',
              },
              { op: 'newVersion', action: 'retire', noteId, expectedVersion: 2, reason: 'obsolete' },
            ],
            1,
          ),
        );
        const history = await getNoteHistory(db, { tenantId: tenant, noteId });
        expect(history.versions.map((v) => [v.version, v.status, v.claim])).toEqual([
          [1, 'active', noteContent().claim],
          [2, 'active', 'Metric units, except for altitude.'],
          [3, 'retired', 'Metric units, except for altitude.'],
        ]);
        expect(history.audit.map((a) => [a.action, a.fromVersion, a.toVersion])).toEqual([
          ['create', null, 1],
          ['revise', 1, 2],
          ['retire', 2, 3],
        ]);
        expect(await getNote(db, { tenantId: tenant, noteId })).toMatchObject({ version: 3, status: 'retired' });
      });

      it('rollback writes a new version equal to the target', async () => {
        const tenant = freshTenant();
        const noteId = freshNoteId();
        await applyNoteBatch(
          db,
          batch(tenant, [
            createOp(noteId),
            {
              op: 'newVersion',
              action: 'quarantine',
              noteId,
              expectedVersion: 1,
              changes: { claim: 'Imperial units.' },
            },
            { op: 'newVersion', action: 'rollback', noteId, expectedVersion: 2, targetVersion: 1, reason: 'bad run' },
          ]),
        );
        const note = await getNote(db, { tenantId: tenant, noteId });
        expect(note).toMatchObject({ version: 3, status: 'active', claim: noteContent().claim });
      });

      it('rejects a stale expectedVersion with NoteVersionConflictError and writes nothing of the batch', async () => {
        const tenant = freshTenant();
        const noteId = freshNoteId();
        await applyNoteBatch(db, batch(tenant, [createOp(noteId)]));
        await applyNoteBatch(
          db,
          batch(
            tenant,
            [{ op: 'newVersion', action: 'reinforce', noteId, expectedVersion: 1, changes: { sourceCount: 2 } }],
            1,
          ),
        );
        const other = freshNoteId();
        const error = await applyNoteBatch(
          db,
          batch(
            tenant,
            [
              createOp(other),
              { op: 'newVersion', action: 'revise', noteId, expectedVersion: 1, changes: { claim: 'stale' } },
            ],
            2,
          ),
        ).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(NoteVersionConflictError);
        expect(error).toMatchObject({ noteId, expectedVersion: 1, actualVersion: 2 });
        expect((error as Error).message).toContain(noteId);
        expect(await getNote(db, { tenantId: tenant, noteId: other })).toBeUndefined();
        expect(await countRows(db, 'audit_log', tenant)).toBe(2);
      });

      it('refuses to create a note id that exists', async () => {
        const tenant = freshTenant();
        const noteId = freshNoteId();
        await applyNoteBatch(db, batch(tenant, [createOp(noteId)]));
        await expect(applyNoteBatch(db, batch(tenant, [createOp(noteId)], 1))).rejects.toBeInstanceOf(
          NoteAlreadyExistsError,
        );
      });

      it('lets exactly one of two concurrent writers to one note win', async () => {
        const tenant = freshTenant();
        const noteId = freshNoteId();
        await applyNoteBatch(db, batch(tenant, [createOp(noteId)]));
        const write = (runId: string, claim: string) =>
          applyNoteBatch(db, {
            ...batch(
              tenant,
              [{ op: 'newVersion', action: 'revise', noteId, expectedVersion: 1, changes: { claim } }],
              0,
              runId,
            ),
          });
        const outcomes = await Promise.allSettled([write('writer-a', 'A wins'), write('writer-b', 'B wins')]);
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(lost[0]?.reason).toBeInstanceOf(NoteVersionConflictError);
        expect(await countRows(db, 'note_versions', tenant)).toBe(2);
        expect(await countRows(db, 'audit_log', tenant)).toBe(2);
        expect((await verifyAuditChain(db, tenant)).ok).toBe(true);
      });

      it('applies the same batch twice without change and returns the same result', async () => {
        const tenant = freshTenant();
        const input = batch(tenant, [createOp(), createOp()], 7, 'run-idem');
        const first = await applyNoteBatch(db, input);
        const counts = await Promise.all([
          countRows(db, 'note_versions', tenant),
          countRows(db, 'audit_log', tenant),
          countRows(db, 'notes', tenant),
        ]);
        const second = await applyNoteBatch(db, input);
        expect(second).toEqual(first);
        expect(
          await Promise.all([
            countRows(db, 'note_versions', tenant),
            countRows(db, 'audit_log', tenant),
            countRows(db, 'notes', tenant),
          ]),
        ).toEqual(counts);
        expect(counts).toEqual([2, 2, 2]);
        await expect(applyNoteBatch(db, batch(tenant, [createOp()], 7, 'run-idem'))).rejects.toBeInstanceOf(
          BatchKeyReuseError,
        );
      });

      it('carries the embedding while the claim is unchanged and drops it when the claim changes', async () => {
        const tenant = freshTenant();
        const noteId = freshNoteId();
        const embedding = Array.from({ length: options.dimension }, (_, i) => (i + 1) / options.dimension);
        await applyNoteBatch(
          db,
          batch(tenant, [
            { ...createOp(noteId), embedding },
            { op: 'newVersion', action: 'reinforce', noteId, expectedVersion: 1, changes: { sourceCount: 2 } },
          ]),
        );
        await applyNoteBatch(
          db,
          batch(
            tenant,
            [
              { op: 'newVersion', action: 'reinforce', noteId, expectedVersion: 2, changes: { sourceCount: 3 } },
              { op: 'newVersion', action: 'revise', noteId, expectedVersion: 3, changes: { claim: 'new claim' } },
            ],
            1,
          ),
        );
        const { rows } = await withTenant(db, tenant, (tx) =>
          tx.query(
            `SELECT version, embedding IS NOT NULL AS has FROM note_versions WHERE tenant_id = $1 ORDER BY version`,
            [tenant],
          ),
        );
        expect(rows).toEqual([
          { version: 1, has: true },
          { version: 2, has: true },
          { version: 3, has: true },
          { version: 4, has: false },
        ]);
      });

      it('full text finds words with a capital outside A–Z, and Chinese or Japanese written without spaces', async () => {
        const tenant = freshTenant();
        const [german, chinese, japanese, english] = [freshNoteId(), freshNoteId(), freshNoteId(), freshNoteId()];
        await applyNoteBatch(
          db,
          batch(tenant, [
            createOp(german, { claim: 'Herr Müller bevorzugt Überweisungen.' }),
            createOp(chinese, { claim: '用户喜欢靠过道的座位。' }),
            createOp(japanese, { claim: 'ユーザーは通路側の席を好みます。' }),
            createOp(english, { claim: 'u-dan prefers aisle seats.' }),
          ]),
        );
        await withTenant(db, tenant, (tx) =>
          insertIndexedRecords(tx, {
            tenantId: tenant,
            model: 'test-model',
            form: RECORD_VECTOR_FORM,
            records: [
              indexedRecordRow(options.dimension, {
                recordId: 'r-de',
                text: 'Die Überweisung nach Москва ist angekommen.',
              }),
              indexedRecordRow(options.dimension, { recordId: 'r-zh', text: '我想要靠过道的座位' }),
            ],
          }),
        );
        const notesFor = (question: string) =>
          withTenant(db, tenant, (tx) =>
            selectTextCandidates(tx, { ...textParams(tenant), queryText: fullTextQuery(contentTokens(question)) }),
          ).then((rows) => rows.map((r) => r.version.noteId).sort());
        const recordsFor = (question: string) =>
          withTenant(db, tenant, (tx) =>
            selectRecordTextCandidates(tx, {
              ...textParams(tenant),
              model: 'test-model',
              queryText: fullTextQuery(contentTokens(question)),
            }),
          ).then((rows) => rows.map((r) => r.recordId).sort());
        expect(await notesFor('Wer bevorzugt Überweisungen?')).toEqual([german]);
        expect(await notesFor('座位')).toEqual([chinese]);
        expect(await notesFor('通路側の席')).toEqual([japanese]);
        expect(await notesFor('aisle seats')).toEqual([english]);
        expect(await recordsFor('überweisung москва')).toEqual(['r-de']);
        expect(await recordsFor('过道座位')).toEqual(['r-zh']);
        // An operator's search of the claims folds case beyond A–Z too.
        const found = await withTenant(db, tenant, (tx) =>
          Promise.all([
            selectNotesMatching(tx, { tenantId: tenant, text: 'überweisungen', limit: 10 }),
            selectCurrentVersionsByText(tx, { tenantId: tenant, text: 'ÜBERWEISUNGEN', limit: 10 }),
          ]),
        );
        expect(found.map((rows) => rows.map((v) => v.noteId))).toEqual([[german], [german]]);
      });

      it('lists current notes by status with a cursor', async () => {
        const tenant = freshTenant();
        const ids = Array.from({ length: 5 }, () => freshNoteId()).sort();
        await applyNoteBatch(
          db,
          batch(
            tenant,
            ids.map((id) => createOp(id)),
          ),
        );
        await applyNoteBatch(
          db,
          batch(tenant, [{ op: 'newVersion', action: 'retire', noteId: ids[0] as string, expectedVersion: 1 }], 1),
        );
        const page1 = await listNotes(db, { tenantId: tenant, status: 'active', limit: 3 });
        expect(page1.notes.map((n) => n.noteId)).toEqual(ids.slice(1, 4));
        const page2 = await listNotes(db, {
          tenantId: tenant,
          status: 'active',
          limit: 3,
          cursor: page1.nextCursor ?? undefined,
        });
        expect(page2.notes.map((n) => n.noteId)).toEqual(ids.slice(4));
        expect(page2.nextCursor).toBeNull();
        expect((await listNotes(db, { tenantId: tenant, limit: 10 })).notes).toHaveLength(5);
      });
    });

    describe('tenant isolation (row-level security)', () => {
      it('a query without a tenant filter sees only its tenant, and nothing without a tenant', async () => {
        const [a, b] = [freshTenant('a'), freshTenant('b')];
        await applyNoteBatch(db, batch(a, [createOp(), createOp()]));
        await applyNoteBatch(db, batch(b, [createOp()]));
        const seenByA = await withTenant(
          db,
          a,
          async (tx) => (await tx.query('SELECT * FROM note_versions')).rows as Array<{ tenant_id: string }>,
        );
        expect(seenByA).toHaveLength(2);
        expect(new Set(seenByA.map((r) => r.tenant_id))).toEqual(new Set([a]));
        const auditSeenByB = await withTenant(db, b, async (tx) => (await tx.query('SELECT * FROM audit_log')).rows);
        expect(auditSeenByB).toHaveLength(1);
        const noTenant = await unscoped(db).transaction(async (tx) => {
          await tx.query('SET LOCAL ROLE nocturne_app');
          // One statement at a time: a connection runs one, and pg will refuse a second sent before it ends.
          const counts: number[] = [];
          for (const t of ['notes', 'note_versions', 'audit_log'])
            counts.push((await tx.query(`SELECT * FROM ${t}`)).rowCount);
          return counts;
        });
        expect(noTenant).toEqual([0, 0, 0]);
      });

      it('makes transaction settings before the first statement, quoted whatever they hold, and ends them with it', async () => {
        const odd = `it's a \\ back'slash; SELECT 1`;
        const read = `SELECT current_setting('app.probe', true) AS probe, current_user AS who`;
        const inside = await unscoped(db).transaction(
          async (tx) => (await tx.query(read)).rows[0],
          [
            ['app.probe', odd],
            ['role', 'nocturne_app'],
          ],
        );
        expect(inside).toEqual({ probe: odd, who: 'nocturne_app' });
        const after = await unscoped(db).transaction(async (tx) => (await tx.query(read)).rows[0]);
        expect(after).not.toEqual(inside);
        expect((after as { probe: string | null }).probe ?? '').toBe('');
      });

      it('runs a statement kept prepared again with other values, each time under its own tenant', async () => {
        const [a, b] = [freshTenant('a'), freshTenant('b')];
        const ids = { [a]: freshNoteId(), [b]: freshNoteId() };
        for (const t of [a, b]) await applyNoteBatch(db, batch(t, [createOp(ids[t])]));
        // No tenant filter in the text: row-level security alone scopes the reused statement.
        const read = `SELECT note_id FROM notes WHERE note_id = ANY($1::text[]) ORDER BY note_id`;
        const seen = async (t: string) =>
          withTenant(db, t, async (tx) => {
            const { rows } = await tx.query(read, [[ids[a], ids[b]]], PREPARED);
            const kept =
              db.driver === 'postgres'
                ? (await tx.query(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1`, [read]))
                    .rows[0]
                : { n: 1 };
            return { notes: rows.map((r) => (r as { note_id: string }).note_id), kept: (kept as { n: number }).n };
          });
        for (const t of [a, b, a, b, a, b]) expect(await seen(t)).toEqual({ notes: [ids[t]], kept: 1 });
      });

      it("refuses to write another tenant's rows", async () => {
        const [a, b] = [freshTenant('a'), freshTenant('b')];
        const error = await withTenant(db, a, (tx) =>
          tx.query(
            `INSERT INTO runs (tenant_id, run_id, workflow_id, trigger, budget, spent, status, counts, started_at)
                    VALUES ($1, 'r', 'w', 'manual', '{}', '{}', 'running', '{}', now())`,
            [b],
          ),
        ).catch((e: unknown) => e);
        expect(String(error)).toMatch(/row-level security/);
      });

      it('the app role cannot update a version or delete audit entries', async () => {
        const tenant = freshTenant();
        await applyNoteBatch(db, batch(tenant, [createOp()]));
        const update = await withTenant(db, tenant, (tx) =>
          tx.query(`UPDATE note_versions SET claim = 'rewritten'`),
        ).catch((e: unknown) => e);
        expect(update).toMatchObject({ code: PERMISSION_DENIED });
        const del = await withTenant(db, tenant, (tx) => tx.query(`DELETE FROM audit_log`)).catch((e: unknown) => e);
        expect(del).toMatchObject({ code: PERMISSION_DENIED });
        const delVersion = await withTenant(db, tenant, (tx) => tx.query(`DELETE FROM note_versions`)).catch(
          (e: unknown) => e,
        );
        expect(delVersion).toMatchObject({ code: PERMISSION_DENIED });
        expect(await countRows(db, 'audit_log', tenant)).toBe(1);
      });
    });

    describe('audit hash chain', () => {
      it('verifies, and finds the first tampered entry', async () => {
        const tenant = freshTenant();
        const noteId = freshNoteId();
        await applyNoteBatch(db, batch(tenant, [createOp(noteId), createOp()]));
        await applyNoteBatch(
          db,
          batch(
            tenant,
            [{ op: 'newVersion', action: 'reinforce', noteId, expectedVersion: 1, changes: { sourceCount: 2 } }],
            1,
          ),
        );
        expect(await verifyAuditChain(db, tenant)).toMatchObject({ ok: true, entries: 3, legacy: 3, keyed: 0 });
        await asOwner(
          owner,
          tenant,
          `UPDATE audit_log SET reason = 'nothing to see' WHERE tenant_id = $1 AND seq = 2`,
          [tenant],
        );
        expect(await verifyAuditChain(db, tenant)).toMatchObject({ ok: false, brokenSeq: 2, entries: 1 });
      });

      it('detects a deleted entry', async () => {
        const tenant = freshTenant();
        await applyNoteBatch(db, batch(tenant, [createOp(), createOp(), createOp()]));
        await asOwner(owner, tenant, `DELETE FROM audit_log WHERE tenant_id = $1 AND seq = 2`, [tenant]);
        expect(await verifyAuditChain(db, tenant)).toMatchObject({ ok: false, brokenSeq: 2 });
      });
    });

    describe('runs and memory usage', () => {
      it('records a run, updates it, and lists the versions it changed', async () => {
        const tenant = freshTenant();
        const run = {
          runId: 'run-42',
          workflowId: `consolidate/${tenant}/2026-01-02`,
          tenantId: tenant,
          trigger: 'schedule' as const,
          budget: { maxEpisodes: 100, maxLlmTokens: 0, maxNoteChanges: 50, deadlineSeconds: 600 },
          spent: { episodes: 0, llmTokens: 0, noteChanges: 0, seconds: 0 },
          status: 'running' as const,
          counts: { sampled: 0, replayed: 0, proposed: 0, rejected: 0, committed: 0, quarantined: 0 },
          startedAt: '2026-01-02T03:00:00.000Z',
        };
        await insertRun(db, run);
        await insertRun(db, run);
        const noteId = freshNoteId();
        await applyNoteBatch(db, batch(tenant, [createOp(noteId)], 0, 'run-42'));
        expect(
          await updateRun(db, {
            tenantId: tenant,
            runId: 'run-42',
            status: 'completed',
            finishedAt: '2026-01-02T03:05:00.000Z',
            counts: { ...run.counts, committed: 1 },
          }),
        ).toBe(true);
        expect(await getRun(db, { tenantId: tenant, runId: 'run-42' })).toMatchObject({
          status: 'completed',
          finishedAt: '2026-01-02T03:05:00.000Z',
          counts: { committed: 1 },
          changedVersions: [{ noteId, fromVersion: null, toVersion: 1 }],
        });
        expect(await getRun(db, { tenantId: freshTenant(), runId: 'run-42' })).toBeUndefined();
      });

      it('logs memory usage once per task, note and version', async () => {
        const tenant = freshTenant();
        const noteId = freshNoteId();
        await applyNoteBatch(db, batch(tenant, [createOp(noteId)]));
        const rows = [{ taskId: 'task-1', noteId, version: 1, rank: 1, score: 0.82, at: '2026-01-03T00:00:00.000Z' }];
        expect(await insertMemoryUsage(db, { tenantId: tenant, rows })).toBe(1);
        expect(await insertMemoryUsage(db, { tenantId: tenant, rows })).toBe(0);
      });
    });
  });
}
