import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NoteContent } from '../../src/contracts/note.ts';
import {
  applyNoteBatch,
  type Db,
  getNoteHistory,
  type NoteOp,
  openDb,
  type Queryable,
  withTenant,
} from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';
import type { Embedder } from '../../src/embeddings/embedder.ts';
import { createHashingEmbedder } from '../../src/embeddings/hashing.ts';
import { recall } from '../../src/recall/recall.ts';
import {
  selectTextCandidates,
  selectVectorCandidates,
  selectCurrentVectorChannel,
  setIndexScanSettings,
  vectorCandidatesSql,
  textCandidatesSql,
  currentVectorChannelSql,
  noteKey,
  type CandidateParams,
  type CandidateRow,
} from '../../src/recall/queries.ts';
import { planPerCall, planVectorRead, readVectorChannel } from '../../src/recall/read-candidates.ts';
import { TenantSizes } from '../../src/recall/tenant-sizes.ts';
import { STACK } from '../../src/stack/endpoints.ts';
import { createOp, freshNoteId, freshTenant } from '../helpers/notes.ts';
import { dropSchema, openOwnerDb, stackDatabase } from '../helpers/pipeline.ts';
import { gatedEmbedder, loggingDb } from '../helpers/gated-recall.ts';

// Real PostgreSQL + pgvector, a fresh schema per run. The hashing embedder gives stable vectors:
// these tests check eligibility, isolation, budget and logging, not retrieval quality.
const schema = `nocturne_recall_${randomBytes(4).toString('hex')}`;
const DIMENSION = STACK.embeddings.dimension;
const embedder = createHashingEmbedder(DIMENSION);
const NOW = new Date('2026-06-01T00:00:00.000Z');
const now = () => NOW;

let db: Db;
let batchNo = 0;

async function commit(tenantId: string, ops: NoteOp[], at: Date = NOW): Promise<void> {
  await applyNoteBatch(db, { tenantId, runId: 'run-recall', batchNo: batchNo++, actor: 'test', ops }, () => at);
}

async function embeddedCreate(
  claim: string,
  overrides: Partial<NoteContent> = {},
  extra: Partial<{ status: 'staged' | 'active' | 'quarantined'; embed: boolean }> = {},
): Promise<NoteOp> {
  const [embedding] = await embedder.embed([claim]);
  return {
    ...createOp(freshNoteId(), { claim, ...overrides }),
    ...(extra.embed === false ? {} : { embedding }),
    ...(extra.status ? { status: extra.status } : {}),
  } as NoteOp;
}

/**
 * Runs `text` as the owner with row-level security lifted on the two tables recall reads (FORCE
 * off, so the owner bypasses its policies), in a transaction that is rolled back: the schema
 * keeps its FORCEd security. The runtime login has no way to do this.
 */
async function withoutRowSecurity(text: string, params: unknown[] = []): Promise<unknown[]> {
  const owner = openOwnerDb(schema);
  let rows: unknown[] = [];
  try {
    await unscoped(owner)
      .transaction(async (tx) => {
        // The recall projection's partitions carry their own FORCE, as every tenant table does.
        const { rows: partitions } = await tx.query(
          `SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'note_recall'::regclass`,
        );
        const tables = [
          'note_versions',
          'notes',
          'note_recall',
          ...partitions.map((r) => (r as { name: string }).name),
        ];
        for (const table of tables) await tx.query(`ALTER TABLE ${table} NO FORCE ROW LEVEL SECURITY`);
        rows = (await tx.query(text, params)).rows;
        throw new RolledBack();
      })
      .catch((e: unknown) => {
        if (!(e instanceof RolledBack)) throw e;
      });
  } finally {
    await owner.close();
  }
  return rows;
}

class RolledBack extends Error {}

async function tenantQuery(tenantId: string, text: string, params: unknown[] = []): Promise<unknown[]> {
  return (await withTenant(db, tenantId, (tx) => tx.query(text, params))).rows;
}

/** Maintenance only the owner may run (ANALYZE). */
async function asOwner(text: string): Promise<void> {
  const owner = openOwnerDb(schema);
  try {
    await unscoped(owner).query(text);
  } finally {
    await owner.close();
  }
}

beforeAll(async () => {
  db = await openDb(stackDatabase(), { dimension: DIMENSION, schema });
}, 120_000);

afterAll(async () => {
  await db?.close();
  await dropSchema(schema);
});

describe('recall: tenant isolation', () => {
  it('never returns another tenant’s notes, even with the tenant predicate removed from the SQL', async () => {
    const a = freshTenant('a');
    const b = freshTenant('b');
    await commit(a, [await embeddedCreate('Tenant A secret: invoices are exported as CSV files nightly.')]);
    await commit(b, [await embeddedCreate('Invoices are exported as PDF files on request.')]);

    const result = await recall(db, embedder, { tenantId: b, query: 'how are invoices exported', k: 10 }, { now });
    expect(result.notes.length).toBe(1);
    expect(result.notes.map((n) => n.claim).join(' ')).not.toContain('Tenant A');

    const [queryVector] = await embedder.embed(['how are invoices exported']);
    const p: CandidateParams = {
      tenantId: b,
      at: NOW.toISOString(),
      pointInTime: false,
      scopes: undefined,
      queryVector: queryVector!,
      queryText: 'invoices exported',
      limit: 50,
    };
    for (const pointInTime of [false, true]) {
      const q = { ...p, pointInTime };
      const rows = await withTenant(db, b, async (tx) => {
        await setIndexScanSettings(tx, 50);
        return [
          ...(await selectVectorCandidates(tx, q, false, { tenantPredicate: false })),
          ...(await selectVectorCandidates(tx, q, true, { tenantPredicate: false })),
          ...(await selectTextCandidates(tx, q, { tenantPredicate: false })),
        ];
      });
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((r) => r.version.tenantId))).toEqual(new Set([b]));
    }

    // Outside withTenant the runtime login sees no tenant at all (row-level security applies to
    // the login itself, not only to the role withTenant switches to).
    const unscopedRows = await unscoped(db).query(
      vectorCandidatesSql(false, true, queryVector!.length, { tenantPredicate: false }),
      [b, NOW.toISOString(), null, `[${queryVector!.join(',')}]`, 'invoices exported', 1000],
    );
    expect(unscopedRows.rows).toEqual([]);

    // Negative control: the same predicate-less SQL with row-level security lifted does see
    // tenant A, so the assertions above are carried by row-level security alone.
    const leaked = await withoutRowSecurity(
      vectorCandidatesSql(false, true, queryVector!.length, { tenantPredicate: false }),
      [b, NOW.toISOString(), null, `[${queryVector!.join(',')}]`, 'invoices exported', 1000],
    );
    expect(leaked.some((r) => (r as { tenant_id: string }).tenant_id === a)).toBe(true);
  });
});

describe('recall: eligibility', () => {
  it('returns only active, valid notes at their current version', async () => {
    const t = freshTenant();
    const claim = (s: string) => `Refund requests over the limit need manager approval (${s}).`;
    const active = await embeddedCreate(claim('active'));
    const retired = await embeddedCreate(claim('retired'));
    const superseded = await embeddedCreate(claim('superseded'));
    const erased = await embeddedCreate(claim('erased'));
    const revised = await embeddedCreate(claim('revised v1'));
    await commit(t, [
      active,
      retired,
      superseded,
      erased,
      revised,
      await embeddedCreate(claim('staged'), {}, { status: 'staged' }),
      await embeddedCreate(claim('quarantined'), {}, { status: 'quarantined' }),
      await embeddedCreate(claim('expired'), { validUntil: '2026-05-01T00:00:00.000Z' }),
      await embeddedCreate(claim('not yet valid'), { validFrom: '2026-07-01T00:00:00.000Z' }),
    ]);
    await commit(t, [
      { op: 'newVersion', action: 'retire', noteId: retired.noteId, expectedVersion: 1, reason: 'wrong' },
      {
        op: 'newVersion',
        action: 'supersede',
        noteId: superseded.noteId,
        expectedVersion: 1,
        supersededBy: active.noteId,
        reason: 'replaced',
      },
      {
        op: 'newVersion',
        action: 'retire',
        status: 'erased',
        noteId: erased.noteId,
        expectedVersion: 1,
        reason: 'erasure',
      },
      {
        op: 'newVersion',
        action: 'revise',
        noteId: revised.noteId,
        expectedVersion: 1,
        changes: { claim: claim('revised v2') },
        reason: 'update',
      },
    ]);

    const result = await recall(
      db,
      embedder,
      { tenantId: t, query: 'refund requests manager approval limit', k: 20 },
      { now },
    );
    const got = result.notes.map((n) => `${n.noteId}@${n.version}`).sort();
    expect(got).toEqual([`${active.noteId}@1`, `${revised.noteId}@2`].sort());
    // The revised version has no embedding yet (its claim changed): it is reachable by full text.
    const v2 = result.notes.find((n) => n.noteId === revised.noteId);
    expect(v2?.parts.vector).toBe(0);
    expect(v2?.why).toContain('not embedded yet');
    // The result says so in fields, not only in prose: the note and a warning.
    expect(v2?.vectorPending).toBe(true);
    expect(result.notes.find((n) => n.noteId === active.noteId)?.vectorPending).toBeUndefined();
    expect(result.warnings).toContain(
      '1 returned note(s) have no vector yet (indexing is catching up): found by full text only',
    );
    expect(v2?.evidence.length).toBe(1);
  });

  it('reaches notes without embeddings through full text only', async () => {
    const t = freshTenant();
    await commit(t, [await embeddedCreate('The warehouse API paginates at 200 items per page.', {}, { embed: false })]);
    const result = await recall(db, embedder, { tenantId: t, query: 'warehouse pagination page size', k: 5 }, { now });
    expect(result.notes.map((n) => n.claim)).toEqual(['The warehouse API paginates at 200 items per page.']);
    expect(result.stats.vectorCandidates).toBe(0);
  });

  it('skips vector similarity, loudly, while the tenant’s vectors come from another model', async () => {
    const t = freshTenant();
    await commit(t, [await embeddedCreate('The CRM export needs a page size of 200.')]);
    await tenantQuery(
      t,
      `INSERT INTO embedding_projections (tenant_id, model, dimension) VALUES ($1, 'some-older-model', $2)`,
      [t, DIMENSION],
    );
    const result = await recall(db, embedder, { tenantId: t, query: 'CRM export page size', k: 5 }, { now });
    expect(result.stats.vectorPath).toBe('none');
    expect(result.warnings.join(' ')).toContain('some-older-model');
    expect(result.notes.map((n) => n.parts.vector)).toEqual([0]);
    expect(result.notes[0]?.why).toContain('reindex pending');
  });

  it('filters by scope', async () => {
    const t = freshTenant();
    await commit(t, [
      await embeddedCreate('Alice wants answers as tables.', { scope: { level: 'user', key: 'alice' } }),
      await embeddedCreate('Bob wants answers as tables too.', { scope: { level: 'user', key: 'bob' } }),
    ]);
    const result = await recall(
      db,
      embedder,
      { tenantId: t, query: 'answers as tables', k: 5, scope: { level: 'user', key: 'alice' } },
      { now },
    );
    expect(result.notes.map((n) => n.scope.key)).toEqual(['alice']);
  });
});

describe('recall: standing preferences', () => {
  it("returns the named user's preferences whatever the query, most confident first, and logs them", async () => {
    const t = freshTenant();
    const dan = { level: 'user' as const, key: 'dan' };
    await commit(t, [
      await embeddedCreate('dan wants reports as a table, not prose.', { scope: dan, confidence: 0.9 }),
      await embeddedCreate('dan prefers dates as YYYY-MM-DD.', { scope: dan, confidence: 0.7 }),
      await embeddedCreate('dan prefers aisle seats.', { scope: dan, confidence: 0.5 }),
      await embeddedCreate('dan prefers short answers.', { scope: dan, confidence: 0.4 }),
      await embeddedCreate('dan once ordered 40 boxes of paper.', { scope: dan, kind: 'fact' }),
      await embeddedCreate('eve wants reports as prose.', { scope: { level: 'user', key: 'eve' } }),
      await embeddedCreate('The orders API pages at 100 rows.', { scope: { level: 'tenant', key: t }, kind: 'fact' }),
    ]);
    const asked = await recall(
      db,
      embedder,
      {
        tenantId: t,
        query: 'How did orders go this week?',
        k: 1,
        taskId: 'task-7',
        scope: [dan, { level: 'tenant', key: t }],
      },
      { now },
    );
    expect(asked.notes.map((n) => n.claim)).toEqual(['The orders API pages at 100 rows.']);
    expect(asked.preferences.map((n) => n.claim)).toEqual([
      'dan wants reports as a table, not prose.',
      'dan prefers dates as YYYY-MM-DD.',
      'dan prefers aisle seats.',
    ]);
    expect(asked.stats.usageLogged).toBe(4);

    // No user named, or an audit: no standing preferences.
    const unnamed = await recall(db, embedder, { tenantId: t, query: 'How did orders go this week?', k: 1 }, { now });
    expect(unnamed.preferences).toEqual([]);
    const audit = await recall(
      db,
      embedder,
      { tenantId: t, query: 'orders', k: 1, scope: dan, asOf: NOW.toISOString() },
      { now },
    );
    expect(audit.preferences).toEqual([]);
  });

  it("a preference already among the ranked notes is not repeated; a user-bound token gets only its own user's", async () => {
    const t = freshTenant();
    await commit(t, [
      await embeddedCreate('dan wants reports as a table, not prose.', { scope: { level: 'user', key: 'dan' } }),
      await embeddedCreate('eve wants reports as prose.', { scope: { level: 'user', key: 'eve' } }),
    ]);
    const ranked = await recall(
      db,
      embedder,
      { tenantId: t, query: 'reports as a table', k: 5, scope: { level: 'user', key: 'dan' } },
      { now },
    );
    expect(ranked.notes.map((n) => n.claim)).toEqual(['dan wants reports as a table, not prose.']);
    expect(ranked.preferences).toEqual([]);
    const bound = await recall(
      db,
      embedder,
      { tenantId: t, query: 'weather', k: 1, include: ['notes'], scope: { level: 'user', key: 'eve' } },
      { now, visibleToUser: 'dan' },
    );
    expect(bound.preferences).toEqual([]);
    const own = await recall(db, embedder, { tenantId: t, query: 'weather', k: 1 }, { now, visibleToUser: 'dan' });
    expect(own.preferences.map((n) => n.claim)).toEqual(['dan wants reports as a table, not prose.']);
  });
});

describe('recall: context assembly', () => {
  it('fits the token budget (approx ceil(chars/4)) and folds near-duplicates', async () => {
    const t = freshTenant();
    const places = ['Lisbon', 'Oslo', 'Nairobi', 'Lima', 'Osaka', 'Perth', 'Quebec', 'Tunis'];
    const carriers = ['DHL', 'UPS', 'FedEx', 'Posti', 'Correos', 'Aramex', 'Sagawa', 'Purolator'];
    const claims = places.map(
      (p, i) =>
        `Shipping to ${p}: parcels go with ${carriers[i]} and need a customs form of type ${String.fromCharCode(65 + i)}${i * 7}.`,
    );
    await commit(t, [
      ...(await Promise.all(claims.map((c) => embeddedCreate(c)))),
      await embeddedCreate(`${claims[0]!.slice(0, -1)}!`),
    ]);
    const full = await recall(
      db,
      embedder,
      { tenantId: t, query: 'shipping rule parcels region carrier customs form', k: 20 },
      { now },
    );
    expect(full.notes.length).toBe(8);
    expect(full.stats.duplicatesFolded).toBe(1);
    expect(full.notes.flatMap((n) => n.duplicates)).toHaveLength(1);

    const budget = 70;
    const cut = await recall(
      db,
      embedder,
      { tenantId: t, query: 'shipping rule parcels region carrier customs form', k: 20, tokenBudget: budget },
      { now },
    );
    expect(cut.notes.length).toBeGreaterThan(0);
    expect(cut.notes.length).toBeLessThan(8);
    expect(cut.tokens).toBeLessThanOrEqual(budget);
    expect(cut.notes.reduce((s, n) => s + Math.ceil(n.claim.length / 4), 0)).toBe(cut.tokens);
    expect(cut.stats.overBudget).toBeGreaterThan(0);
  });

  it('abstains under minRelevance: nothing that matches the query this well gives an empty answer', async () => {
    const t = freshTenant();
    await commit(t, [
      await embeddedCreate('Refunds over 100 dollars require a manager approval id.'),
      await embeddedCreate('The billing export runs every night at two in the morning.'),
    ]);
    const ask = (query: string, minRelevance?: number) =>
      recall(
        db,
        embedder,
        { tenantId: t, query, k: 10, ...(minRelevance === undefined ? {} : { minRelevance }) },
        { now },
      );

    const unfiltered = await ask('volcano eruption forecast for Iceland');
    expect(unfiltered.notes.length).toBeGreaterThan(0);
    const threshold = 0.3;
    expect(Math.max(...unfiltered.notes.map((n) => n.parts.relevance))).toBeLessThan(threshold);

    const abstained = await ask('volcano eruption forecast for Iceland', threshold);
    expect(abstained.ranking).toEqual([]);
    expect(abstained.notes).toEqual([]);
    expect(abstained.stats.belowMinRelevance).toBe(unfiltered.notes.length);

    const answered = await ask('Do refunds over 100 dollars require a manager approval id?', threshold);
    expect(answered.notes.map((n) => n.claim)).toEqual(['Refunds over 100 dollars require a manager approval id.']);
    expect(answered.notes[0]!.parts.relevance).toBeGreaterThanOrEqual(threshold);

    await expect(ask('refunds', 1.5)).rejects.toThrow(/minRelevance/);
  });

  it('matches a first-person question as the asker: askedBy tells "my" as the user it names', async () => {
    const t = freshTenant();
    await commit(t, [
      await embeddedCreate("u-dan's first sprint ends on 12 March 2024."),
      await embeddedCreate("u-mia's first sprint ends on 2 April 2024."),
    ]);
    const ask = (askedBy?: string) =>
      recall(
        db,
        embedder,
        { tenantId: t, query: 'When does my first sprint end?', k: 2, ...(askedBy ? { askedBy } : {}) },
        { now },
      );

    const mia = await ask('u-mia');
    expect(mia.query).toBe('When does my first sprint end?');
    expect(mia.matchedAs).toBe("When does u-mia's first sprint end?");
    expect(mia.notes[0]!.claim).toBe("u-mia's first sprint ends on 2 April 2024.");
    const dan = await ask('u-dan');
    expect(dan.notes[0]!.claim).toBe("u-dan's first sprint ends on 12 March 2024.");
    // Not told who asks: the question is matched as written.
    expect((await ask()).matchedAs).toBe('When does my first sprint end?');
  });

  it('logs returned versions in memory usage once per task', async () => {
    const t = freshTenant();
    await commit(t, [
      await embeddedCreate('Always retry the export tool with a smaller page size.'),
      await embeddedCreate('The export tool times out on large pages.'),
    ]);
    const req = { tenantId: t, query: 'export tool page size', k: 5, taskId: 'task-42' };
    const first = await recall(db, embedder, req, { now });
    expect(first.notes.length).toBe(2);
    expect(first.stats.usageLogged).toBe(2);
    const second = await recall(db, embedder, req, { now });
    expect(second.stats.usageLogged).toBe(0);
    const rows = (await tenantQuery(
      t,
      `SELECT note_id, version, rank, score FROM memory_usage WHERE tenant_id = $1 AND task_id = 'task-42' ORDER BY rank`,
      [t],
    )) as Array<{ note_id: string; rank: number; score: number }>;
    expect(rows.map((r) => [r.note_id, r.rank])).toEqual(first.notes.map((n) => [n.noteId, n.rank]));
    expect(rows[0]?.score).toBeCloseTo(first.notes[0]!.score, 9);
  });
});

describe('recall: asOf', () => {
  it('returns the version that was active at that time, from the version rows', async () => {
    const t = freshTenant();
    const op = await embeddedCreate('The billing API returns amounts in dollars.');
    await commit(t, [op], new Date('2026-01-10T00:00:00.000Z'));
    const [v2embedding] = await embedder.embed(['The billing API returns amounts in cents.']);
    await commit(
      t,
      [
        {
          op: 'newVersion',
          action: 'revise',
          noteId: op.noteId,
          expectedVersion: 1,
          changes: { claim: 'The billing API returns amounts in cents.' },
          embedding: v2embedding,
          reason: 'correction',
        },
      ],
      new Date('2026-02-10T00:00:00.000Z'),
    );
    await commit(
      t,
      [{ op: 'newVersion', action: 'retire', noteId: op.noteId, expectedVersion: 2, reason: 'api changed' }],
      new Date('2026-03-10T00:00:00.000Z'),
    );

    const query = 'billing API amounts';
    expect((await recall(db, embedder, { tenantId: t, query, k: 5 }, { now })).notes).toEqual([]);
    const jan = await recall(db, embedder, { tenantId: t, query, k: 5, asOf: '2026-01-20T00:00:00.000Z' }, { now });
    expect(jan.notes.map((n) => [n.version, n.claim])).toEqual([[1, 'The billing API returns amounts in dollars.']]);
    const feb = await recall(db, embedder, { tenantId: t, query, k: 5, asOf: '2026-02-20T00:00:00.000Z' }, { now });
    expect(feb.notes.map((n) => n.version)).toEqual([2]);
    expect(
      (await recall(db, embedder, { tenantId: t, query, k: 5, asOf: '2026-01-01T00:00:00.000Z' }, { now })).notes,
    ).toEqual([]);
  });
});

describe('recall: distances from the version rows', () => {
  it("no read's final order is served by note_versions' own graph", async () => {
    const t = freshTenant('order');
    await commit(
      t,
      await Promise.all(Array.from({ length: 30 }, (_, i) => embeddedCreate(`Export job ${i} writes CSV files.`))),
    );
    const [queryVector] = await embedder.embed(['export job csv']);
    const args = [t, NOW.toISOString(), null, `[${queryVector!.join(',')}]`, 'export', 50];
    const plan = { efSearch: 100, dimension: DIMENSION, exactUpTo: 2000, limit: 50 };
    // Every read returns its rows' full-precision distances from the version rows it joins, and
    // sorts by them last. Were that order the bare operator, note_versions' HNSW index could serve
    // it, and a plan could walk every tenant's versions in graph order to join a few rows. With
    // sorting off (as the bench's forced read runs, or as a generic plan may cost it), nothing
    // else would produce the order.
    const explain = (sql: string) =>
      withTenant(db, t, async (tx) => {
        await tx.query(`SELECT set_config('enable_sort', 'off', true)`);
        const { rows } = await tx.query(`EXPLAIN ${sql}`, args);
        return rows.map((r) => Object.values(r as Record<string, string>)[0]).join('\n');
      });
    const statements = {
      graph: vectorCandidatesSql(false, false, DIMENSION),
      exact: vectorCandidatesSql(false, true, DIMENSION),
      text: textCandidatesSql(false),
      counted: currentVectorChannelSql(plan),
      knownGraph: currentVectorChannelSql({ ...plan, path: 'hnsw' }),
    };
    for (const [name, sql] of Object.entries(statements))
      expect(await explain(sql), name).not.toMatch(/note_versions_embedding_hnsw/);
    // Negative control: the same read sorted by the bare operator is served by that graph.
    const bare = statements.graph.replace(
      '((v.embedding <=> $4::vector) + 0)::float8',
      '(v.embedding <=> $4::vector)::float8',
    );
    expect(bare).not.toBe(statements.graph);
    expect(await explain(bare)).toMatch(/note_versions_embedding_hnsw/);
  });
});

describe('recall: iterative index scan', () => {
  const BIG = 2000;
  const SMALL = 12;
  const K = 10;

  it('returns k rows for a small tenant among a large one, and for a selective scope through the HNSW index', async () => {
    const big = freshTenant('big');
    const small = freshTenant('small');
    const topic = (i: number) => `Deployment note ${i}: service ${i % 37} restarts after config change ${i}.`;
    for (let start = 0; start < BIG; start += 500) {
      const ops = await Promise.all(
        Array.from({ length: 500 }, (_, j) =>
          embeddedCreate(topic(start + j), { scope: { level: 'user', key: start + j < SMALL ? 'rare' : 'common' } }),
        ),
      );
      await commit(big, ops);
    }
    await commit(small, await Promise.all(Array.from({ length: SMALL }, (_, i) => embeddedCreate(topic(i)))));
    await asOwner(`ANALYZE note_versions`);
    await asOwner(`ANALYZE notes`);
    await asOwner(`ANALYZE note_recall`);

    const few = await recall(
      db,
      embedder,
      { tenantId: small, query: 'service restarts after config change', k: K },
      { now },
    );
    expect(few.notes.length).toBe(K);
    expect(few.notes.every((n) => n.claim.startsWith('Deployment note'))).toBe(true);

    // The selective filter here is a scope (12 of 2000 rows), which no btree serves: the planner
    // walks the HNSW index, and only the iterative scan keeps going past ef_search rows.
    const [queryVector] = await embedder.embed(['service restarts after config change']);
    const p: CandidateParams = {
      tenantId: big,
      at: NOW.toISOString(),
      pointInTime: false,
      scopes: [{ level: 'user', key: 'rare' }],
      queryVector: queryVector!,
      queryText: '',
      limit: K,
    };
    // At 2000 rows the planner may find a sequential scan + sort cheaper; this test is about the
    // index path, so it takes sequential scans off the table.
    const indexOnly = `SELECT set_config('enable_seqscan', 'off', true)`;
    const plan = await withTenant(db, big, async (tx) => {
      await tx.query(indexOnly);
      await setIndexScanSettings(tx, K);
      const { rows } = await tx.query(`EXPLAIN ${vectorCandidatesSql(false, false, queryVector!.length)}`, [
        big,
        p.at,
        JSON.stringify(p.scopes),
        `[${queryVector!.join(',')}]`,
        '',
        K,
      ]);
      return rows.map((r) => Object.values(r as Record<string, string>)[0]).join('\n');
    });
    // Current-time reads search the recall projection: the HNSW index of the tenant's partition.
    expect(plan).toMatch(/note_recall_p\d+_hnsw/);
    const iterative = await withTenant(db, big, async (tx) => {
      await tx.query(indexOnly);
      await setIndexScanSettings(tx, K);
      return selectVectorCandidates(tx, p, false);
    });
    expect(iterative.length).toBe(K);
    expect(iterative.every((r) => r.version.scope.key === 'rare')).toBe(true);
    // Negative control: the same index scan without iterative scanning stops at ef_search rows.
    const plain = await withTenant(db, big, async (tx) => {
      await tx.query(indexOnly);
      await tx.query(`SELECT set_config('hnsw.iterative_scan', 'off', true), set_config('hnsw.ef_search', '40', true)`);
      return selectVectorCandidates(tx, p, false);
    });
    expect(plain.length).toBeLessThan(K);
    // recall's one-statement read makes its own settings: in a transaction left at pgvector's
    // defaults (no iterative scan), its index read still goes past ef_search rows, so the
    // settings take effect within the statement that makes them.
    const oneStatement = (exactUpTo: number, path?: 'exact' | 'hnsw') =>
      withTenant(db, big, async (tx) => {
        await tx.query(indexOnly);
        return selectCurrentVectorChannel(tx, p, { efSearch: 40, dimension: queryVector!.length, exactUpTo, path });
      });
    const viaIndex = await oneStatement(100);
    expect(viaIndex.exact).toBe(false);
    expect(viaIndex.counted).toBe(101);
    expect(viaIndex.rows.map((r) => r.version.scope.key)).toEqual(Array(K).fill('rare'));
    // At most exactUpTo rows (2000 here): the same statement reads the tenant exactly.
    const exactly = await oneStatement(BIG);
    expect(exactly.exact).toBe(true);
    expect(exactly.counted).toBe(BIG);
    expect(exactly.rows.map((r) => r.version.scope.key)).toEqual(Array(K).fill('rare'));
    // With the path known from an earlier count, the statement counts nothing, and its settings
    // still come before the index read.
    const known = await oneStatement(BIG, 'hnsw');
    expect(known).toMatchObject({ exact: false, counted: null });
    expect(known.rows.map((r) => r.version.scope.key)).toEqual(Array(K).fill('rare'));
    expect(await oneStatement(100, 'exact')).toMatchObject({ exact: true, counted: null, rows: exactly.rows });

    const scoped = await recall(
      db,
      embedder,
      { tenantId: big, query: 'service restarts after config change', k: K, scope: { level: 'user', key: 'rare' } },
      { now },
    );
    expect(scoped.notes.length).toBe(K);
  });
});

describe('recall: a tenant sparse in its partition', () => {
  it('is read exactly once its share of the partition falls below the threshold, and through the graph above it', async () => {
    const dense = freshTenant();
    const topic = (i: number) => `Deployment note ${i}: restart the workers after config change.`;
    await commit(dense, await Promise.all(Array.from({ length: 60 }, (_, i) => embeddedCreate(topic(i)))));
    // A second tenant hashed to the same partition as the first (64 hash partitions, migration 0013).
    const [where] = (await withoutRowSecurity(
      `SELECT p.remainder FROM generate_series(0, 63) AS p(remainder)
        WHERE satisfies_hash_partition('note_recall'::regclass, 64, p.remainder, $1::text)`,
      [dense],
    )) as Array<{ remainder: number }>;
    let sparse = freshTenant();
    for (let i = 0; ; i++) {
      const [hit] = (await withoutRowSecurity(
        `SELECT satisfies_hash_partition('note_recall'::regclass, 64, $1::int, $2::text) AS same`,
        [where!.remainder, sparse],
      )) as Array<{ same: boolean }>;
      if (hit!.same) break;
      if (i > 1000) throw new Error('no tenant id found in the partition');
      sparse = freshTenant();
    }
    await commit(sparse, await Promise.all(Array.from({ length: 8 }, (_, i) => embeddedCreate(topic(100 + i)))));
    await asOwner(`ANALYZE note_recall`);
    const [queryVector] = await embedder.embed(['service restarts after config change']);
    const read = (tenantId: string, shareBelow: number) =>
      withTenant(db, tenantId, (tx) =>
        selectCurrentVectorChannel(
          tx,
          {
            tenantId,
            at: NOW.toISOString(),
            pointInTime: false,
            scopes: undefined,
            queryVector: queryVector!,
            queryText: '',
            limit: 5,
          },
          { efSearch: 40, dimension: queryVector!.length, exactUpTo: 4, sparse: { upTo: 20, shareBelow } },
        ),
      );
    // Other tests' tenants may share the partition too: the share is taken from what it holds.
    const [held] = (await withoutRowSecurity(
      `SELECT count(*)::int AS n FROM note_recall WHERE satisfies_hash_partition('note_recall'::regclass, 64, $1::int, tenant_id)`,
      [where!.remainder],
    )) as Array<{ n: number }>;
    const share = 8 / held!.n;
    // 8 rows: above exactUpTo, under upTo, so the tenant's share of its partition decides.
    expect(await read(sparse, share * 1.5)).toMatchObject({ exact: true, counted: 8 });
    expect(await read(sparse, share * 0.7)).toMatchObject({ exact: false, counted: 8 });
    // The dense tenant holds most of the partition, and more rows than upTo: its graph.
    expect(await read(dense, 0.99)).toMatchObject({ exact: false, counted: 21 });
    // Both reads return the tenant's own nearest rows.
    const exactly = await read(sparse, share * 1.5);
    expect(exactly.rows).toHaveLength(5);
    expect(exactly.rows.every((r) => r.version.tenantId === sparse)).toBe(true);
  });
});

/**
 * A tenant of one note the query quotes and 30 deployment notes, and the vector channel's
 * parameters for that query (5 rows).
 */
async function quotedAmongDeployments() {
  const t = freshTenant();
  const query = 'The billing export runs at midnight.';
  const ops = [await embeddedCreate(query)];
  for (let i = 0; i < 30; i++)
    ops.push(await embeddedCreate(`Deployment note ${i}: restart the workers after config change.`));
  await commit(t, ops);
  const [queryVector] = await embedder.embed([query]);
  const p: CandidateParams = {
    tenantId: t,
    at: NOW.toISOString(),
    pointInTime: false,
    scopes: undefined,
    queryVector: queryVector!,
    queryText: '',
    limit: 5,
  };
  return { t, ops, p };
}

/** Retires the quoted note; its version 1, returned, is the row another channel read. */
async function retireQuoted(t: string, nearest: { noteId: string }) {
  await commit(t, [{ op: 'newVersion', action: 'retire', noteId: nearest.noteId, expectedVersion: 1, reason: 'test' }]);
  const [v1] = (await getNoteHistory(db, { tenantId: t, noteId: nearest.noteId })).versions;
  return v1!;
}

describe('recall: a graph read that left out a nearer row', () => {
  it('is read again exactly when another channel holds a row nearer than its nearest', async () => {
    const { t, ops, p } = await quotedAmongDeployments();
    // The note the query quotes, retired: the graph read leaves it out, as it would a row of a
    // part of the graph it never reached. Its version 1 is the row another channel read.
    const nearest = ops[0]!;
    const v1 = await retireQuoted(t, nearest);
    const sizes = new TenantSizes();
    sizes.counted(t, 'hnsw');
    const read = (known: CandidateRow[]) => withTenant(db, t, (tx) => readVectorChannel(tx, p, known, sizes));
    const exactly = await withTenant(db, t, (tx) => selectVectorCandidates(tx, p, true));

    const alone = await read([]);
    expect(alone).toMatchObject({ path: 'hnsw', fellBack: false });
    const contradicted = await read([{ version: v1, distance: null, textRank: 0.5 }]);
    expect(contradicted).toMatchObject({ path: 'exact', fellBack: true });
    expect(contradicted.known.get(noteKey(nearest.noteId, 1))).toBeCloseTo(0, 5);
    expect(contradicted.rows.map((r) => r.version.noteId)).toEqual(exactly.map((r) => r.version.noteId));
    // A known row farther than the read's nearest proves nothing: the graph read stands.
    const farther = alone.rows.at(-1)!;
    expect(await read([farther])).toMatchObject({ path: 'hnsw', fellBack: false });
  });
});

describe('recall: a graph read planned once', () => {
  it('runs the graph statement on a generic plan with the same rows, and plans the exact read of a fallback per call', async () => {
    const { t, ops, p } = await quotedAmongDeployments();
    const mode = async (tx: Queryable) =>
      ((await tx.query(`SELECT current_setting('plan_cache_mode') AS m`)).rows[0] as { m: string }).m;
    const sizes = new TenantSizes();
    // Not counted yet: the statement counts, planned per call.
    expect(await withTenant(db, t, async (tx) => [await planVectorRead(tx, t, sizes), await mode(tx)])).toEqual([
      { path: undefined, genericPlans: false },
      'auto',
    ]);
    const perCall = await withTenant(db, t, (tx) => readVectorChannel(tx, p, [], sizes));
    sizes.counted(t, 'hnsw');
    // Counted as a graph read: the rest of the transaction runs generic plans, and the rows are
    // as near on every call (the first one plans it, later ones reuse it on their connection).
    for (let i = 0; i < 7; i++) {
      const [planned, during, read] = await withTenant(db, t, async (tx) => {
        const plan = await planVectorRead(tx, t, sizes);
        return [plan, await mode(tx), await readVectorChannel(tx, p, [], sizes, plan)] as const;
      });
      expect(planned).toEqual({ path: 'hnsw', genericPlans: true });
      expect(during).toBe('force_generic_plan');
      expect(read).toMatchObject({ path: 'hnsw', fellBack: false });
      // The deployment notes tie in distance: which of them fill the last places may differ.
      expect(read.rows[0]!.version.noteId).toBe(ops[0]!.noteId);
      expect(read.rows.map((r) => r.distance)).toEqual(perCall.rows.map((r) => r.distance));
    }
    // The generic plan knows how many rows the graph read wants (the limit is in its text): with
    // LIMIT $6 it would assume a tenth of the rows (6 of the 64 it estimates here), and at 100k
    // notes sorting a whole partition then cost nearly as little as the graph on paper
    // (docs/BENCHMARKS.md). A tenant this small is sorted either way.
    const generic = await withTenant(db, t, async (tx) => {
      const sql = currentVectorChannelSql({
        efSearch: 2 * p.limit,
        dimension: DIMENSION,
        exactUpTo: 2000,
        path: 'hnsw',
        limit: p.limit,
      });
      const { rows } = await tx.query(`EXPLAIN (GENERIC_PLAN) ${sql}`);
      return rows.map((r) => Object.values(r as Record<string, string>)[0]).join('\n');
    });
    expect(generic).toMatch(new RegExp(`Limit .*rows=${p.limit} `));
    // A fallback: the note the query quotes, retired, is known nearer than the read's nearest.
    const v1 = await retireQuoted(t, ops[0]!);
    const exactly = await withTenant(db, t, (tx) => selectVectorCandidates(tx, p, true));
    const [fallback, after] = await withTenant(db, t, async (tx) => {
      const plan = await planVectorRead(tx, t, sizes);
      const read = await readVectorChannel(tx, p, [{ version: v1, distance: null, textRank: 0.5 }], sizes, plan);
      return [read, await mode(tx)] as const;
    });
    expect(fallback).toMatchObject({ path: 'exact', fellBack: true });
    expect(fallback.rows.map((r) => r.version.noteId)).toEqual(exactly.map((r) => r.version.noteId));
    expect(after).toBe('auto');
    // planPerCall is what the fallback ran: per-call planning again.
    expect(
      await withTenant(db, t, async (tx) => {
        await planVectorRead(tx, t, sizes);
        await planPerCall(tx);
        return mode(tx);
      }),
    ).toBe('auto');
  });
});

describe('recall: an exact read planned once', () => {
  // A generic plan cannot know the tenant's share of its partition and would scan it whole; with
  // sequential scans off it reads the tenant's rows by key (seen at 100k notes, docs/BENCHMARKS.md;
  // this test's partitions are too small for the planner to prefer the scan either way).
  it('runs the exact statement on a generic plan with sequential scans off, with the same rows', async () => {
    const { t, p } = await quotedAmongDeployments();
    const settings = async (tx: Queryable) =>
      (
        await tx.query(
          `SELECT current_setting('plan_cache_mode') AS plans, current_setting('enable_seqscan') AS seqscan`,
        )
      ).rows[0];
    const sizes = new TenantSizes();
    sizes.counted(t, 'exact');
    const perCall = await withTenant(db, t, (tx) => selectVectorCandidates(tx, p, true));
    for (let i = 0; i < 7; i++) {
      const [planned, during, read] = await withTenant(db, t, async (tx) => {
        const plan = await planVectorRead(tx, t, sizes);
        return [plan, await settings(tx), await readVectorChannel(tx, p, [], sizes, plan)] as const;
      });
      expect(planned).toEqual({ path: 'exact', genericPlans: true });
      expect(during).toEqual({ plans: 'force_generic_plan', seqscan: 'off' });
      expect(read).toMatchObject({ path: 'exact', fellBack: false });
      expect(read.rows.map((r) => [r.version.noteId, r.distance])).toEqual(
        perCall.map((r) => [r.version.noteId, r.distance]),
      );
    }
    // A point-in-time read leaves the transaction's planning as it was; planPerCall sets both back.
    const [pointInTime, afterPerCall] = await withTenant(db, t, async (tx) => {
      const plan = await planVectorRead(tx, t, sizes, true);
      const untouched = { plan, settings: await settings(tx) };
      await planVectorRead(tx, t, sizes);
      await planPerCall(tx);
      return [untouched, await settings(tx)] as const;
    });
    expect(pointInTime).toEqual({
      plan: { path: 'exact', genericPlans: false },
      settings: { plans: 'auto', seqscan: 'on' },
    });
    expect(afterPerCall).toEqual({ plans: 'auto', seqscan: 'on' });
  });
});

describe('recall: the question embedded while the database is read', () => {
  // On PostgreSQL the notes' transaction stays open while the model works (src/recall/read-candidates.ts).
  const claims = [
    'Quarterly invoices are exported to the auditors as CSV.',
    'The auditors want the invoices by the fifth.',
  ];
  const ask = (tenantId: string, e: Embedder, store: Db = db, signal?: AbortSignal) =>
    recall(
      store,
      e,
      { tenantId, query: 'invoices exported to the auditors', k: 5 },
      { now, ...(signal ? { signal } : {}) },
    );

  it('reads full text before the vector is there and answers as it does with the vector first', async () => {
    const t = freshTenant();
    await commit(t, [
      await embeddedCreate(claims[0] as string),
      await embeddedCreate(claims[1] as string, {}, { embed: false }),
    ]);
    const first = await ask(t, embedder);
    const statements: string[] = [];
    let vectorsSent = 0;
    const gate = gatedEmbedder(embedder);
    const asked = ask(
      t,
      gate.embedder,
      loggingDb(db, statements, () => (vectorsSent += 1)),
    );
    // The notes' full text and the records' BM25, both sent while the question's vector is held back.
    await expect.poll(() => statements.filter((s) => s.includes('plainto_tsquery')).length).toBe(2);
    expect(vectorsSent).toBe(0);
    gate.release();
    expect(await asked).toEqual(first);
    expect(first.notes.map((n) => n.claim).sort()).toEqual([...claims].sort());
  });

  it('ends its transactions when the embedding fails or the deadline passes while it waits', async () => {
    const t = freshTenant();
    await commit(t, [await embeddedCreate(claims[0] as string)]);
    // More failed recalls than the pool has connections: a transaction left open would starve the last recall.
    for (let i = 0; i < 12; i++) {
      const statements: string[] = [];
      const gate = gatedEmbedder(embedder);
      const asked = ask(t, gate.embedder, loggingDb(db, statements));
      await expect.poll(() => statements.some((s) => s.includes('plainto_tsquery'))).toBe(true);
      gate.fail(new Error('embedding server unavailable'));
      await expect(asked).rejects.toThrow('embedding server unavailable');
    }
    const statements: string[] = [];
    let vectorsSent = 0;
    const gate = gatedEmbedder(embedder);
    const deadline = new AbortController();
    const late = ask(
      t,
      gate.embedder,
      loggingDb(db, statements, () => (vectorsSent += 1)),
      deadline.signal,
    );
    await expect.poll(() => statements.some((s) => s.includes('plainto_tsquery'))).toBe(true);
    deadline.abort(new Error('deadline passed'));
    gate.release();
    await expect(late).rejects.toThrow('deadline passed');
    expect(vectorsSent).toBe(0);
    expect((await ask(t, embedder)).notes.map((n) => n.claim)).toEqual([claims[0]]);
  });
});
