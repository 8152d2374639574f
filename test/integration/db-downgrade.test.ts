import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from '../../src/config.ts';
import {
  applyNoteBatch,
  type Db,
  deleteErasureRequest,
  freeTenantOperation,
  insertErasureRequest,
  takeTenantOperation,
  migrationNames,
  type NoteOp,
  openDb,
  revertMigrations,
  runMigrations,
  withTenant,
} from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';
import { createModelEmbedder } from '../../src/embeddings/create.ts';
import { recall } from '../../src/recall/recall.ts';
import { stackEnv } from '../../src/stack/endpoints.ts';
import { createOp, freshNoteId, freshTenant } from '../helpers/notes.ts';
import { dropSchema, openOwnerDb } from '../helpers/pipeline.ts';

// A store going back to an earlier release and forward again: every migration after 0016 (the
// last without a down section) is reverted through its down section and applied again, on the
// real server with notes in it, by the owner login. The notes must come through both ways and
// be recalled afterwards; a down section that leaves the schema where applying the migration
// again fails (0025's did, when it was empty) fails here.
const config = parseConfig(stackEnv());
const dimension = config.embedding.dimension;
const schema = `nocturne_downgrade_${randomBytes(4).toString('hex')}`;
const tenant = freshTenant('downgrade');
const e5 = createModelEmbedder(config.embedding);
const LAST_WITHOUT_DOWN = '0016_keyed-audit';
const reversible = migrationNames().filter((name) => name > LAST_WITHOUT_DOWN);
const CLAIMS = {
  kept: 'The billing API returns amounts in cents.',
  retired: 'crm.export times out with pageSize 1000; pageSize 200 works.',
};
const NOW = new Date('2026-06-01T00:00:00.000Z');
let owner: Db;
let db: Db;
let batchNo = 0;
let reverted: string[] = [];
let appliedAgain: string[] = [];
let notesBefore: unknown[] = [];
let notesReverted: unknown[] = [];
let projectionReverted: unknown[] = [];
const refusals: Array<{ error: string; last: string }> = [];

async function commit(ops: NoteOp[]): Promise<void> {
  await applyNoteBatch(
    db,
    { tenantId: tenant, runId: 'run-downgrade', batchNo: batchNo++, actor: 'test', ops },
    () => NOW,
  );
}

async function embeddedCreate(claim: string): Promise<NoteOp> {
  const [embedding] = await e5.embed([claim]);
  return { ...createOp(freshNoteId(), { claim }), embedding } as NoteOp;
}

/** Every version of the tenant's notes, as the store keeps them (vectors compared as text). */
async function versionRows(): Promise<unknown[]> {
  return withTenant(db, tenant, async (tx) => {
    const { rows } = await tx.query(
      `SELECT v.note_id, v.version, v.status, v.claim, n.status AS pointer, n.current_version, v.embedding::text AS embedding
         FROM note_versions v JOIN notes n USING (tenant_id, note_id) ORDER BY v.claim, v.version`,
    );
    return rows;
  });
}

/** The recall projection's rows of the tenant and the type of its vector column, read by the owner. */
async function projection(): Promise<{ rows: unknown[]; type: string }> {
  return unscoped(owner).transaction(async (tx) => {
    await tx.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenant]);
    const { rows } = await tx.query(`SELECT note_id, version FROM note_recall ORDER BY note_id`);
    const { rows: types } = await tx.query(
      `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
        WHERE attrelid = 'note_recall'::regclass AND attname = 'embedding'`,
    );
    return { rows, type: z.object({ type: z.string() }).parse(types[0]).type };
  });
}

/** Reverting every reversible migration, expected to be refused: its error and the last migration applied after it. */
async function refusal(): Promise<{ error: string; last: string }> {
  const error = await revertMigrations(owner, { dimension, schema, count: reversible.length }).then(
    () => 'reverted',
    (e: unknown) => String(e),
  );
  return { error, last: await lastApplied() };
}

async function lastApplied(): Promise<string> {
  const { rows } = await unscoped(owner).query(`SELECT name FROM pgmigrations ORDER BY run_on DESC, id DESC LIMIT 1`);
  return z.object({ name: z.string() }).parse(rows[0]).name;
}

beforeAll(async () => {
  db = await openDb(config.database, { dimension, schema });
  owner = openOwnerDb(schema);
  const kept = await embeddedCreate(CLAIMS.kept);
  const retired = await embeddedCreate(CLAIMS.retired);
  await commit([kept, retired]);
  const retiredId = (retired as { noteId: string }).noteId;
  await commit([{ op: 'newVersion', action: 'retire', noteId: retiredId, expectedVersion: 1, reason: 'wrong' }]);
  notesBefore = await versionRows();
  // An erasure not finished, or a lease a running operation holds, holds the revert back:
  // 0017's and 0023's down sections would drop them.
  const handle = await insertErasureRequest(db, { tenantId: tenant, userId: 'u-dan' });
  refusals.push(await refusal());
  await withTenant(db, tenant, (tx) => deleteErasureRequest(tx, { handle }));
  const holder = 'consolidate/downgrade/night';
  await withTenant(db, tenant, (tx) => takeTenantOperation(tx, { tenantId: tenant, kind: 'consolidation', holder }));
  refusals.push(await refusal());
  await withTenant(db, tenant, (tx) => freeTenantOperation(tx, { tenantId: tenant, holder }));

  reverted = await revertMigrations(owner, { dimension, schema, count: reversible.length });
  notesReverted = await versionRows();
  projectionReverted = [(await projection()).type, await lastApplied()];
  appliedAgain = await runMigrations(owner, { dimension, schema });
  // A process of the release after the rollback starts with fresh connections.
  await db.close();
  db = await openDb(config.database, { dimension, schema, migrate: false });
}, 300_000);

afterAll(async () => {
  await db?.close();
  await owner?.close();
  await dropSchema(schema);
});

describe('reverting the migrations after 0016 and applying them again', () => {
  it('reverts every one of them, newest first, and applies the same ones again in order', () => {
    expect(reversible.length).toBeGreaterThan(10);
    expect(reverted).toEqual([...reversible].reverse());
    expect(appliedAgain).toEqual(reversible);
  });

  it('refuses while an erasure request is not finished or a lease is held, and reverts nothing then', () => {
    expect(refusals).toEqual([
      {
        error: expect.stringMatching(
          /1 erasure request\(s\) not finished: reverting 0017_erasure-lock-and-handles drops erasure_requests/,
        ),
        last: reversible.at(-1),
      },
      {
        error: expect.stringMatching(
          /1 operation lease\(s\) held .*: reverting 0023_tenant-operation-lease drops tenant_operations/,
        ),
        last: reversible.at(-1),
      },
    ]);
  });

  it('leaves the store at 0016 in between, with the projection back on full-precision vectors', () => {
    expect(projectionReverted).toEqual([`vector(${dimension})`, LAST_WITHOUT_DOWN]);
  });

  it('keeps every note version and pointer, with its vector, both ways', async () => {
    expect(notesBefore).toHaveLength(3);
    expect(notesReverted).toEqual(notesBefore);
    expect(await versionRows()).toEqual(notesBefore);
  });

  it('projects the active note alone, in half precision, and recalls it', async () => {
    const { rows, type } = await projection();
    expect(type).toBe(`halfvec(${dimension})`);
    expect(rows).toHaveLength(1);
    const result = await recall(
      db,
      e5,
      { tenantId: tenant, query: 'In which unit does the billing API return amounts?', k: 5, include: ['notes'] },
      { now: () => NOW },
    );
    expect(result.notes.map((n) => n.claim)).toEqual([CLAIMS.kept]);
    // Found through its vector too, not by full text alone: the projection's vectors came back.
    expect(result.stats.vectorCandidates).toBe(1);
  });

  it('keeps the projection in step with new writes through the triggers applied again', async () => {
    await commit([await embeddedCreate('u-dan prefers aisle seats over window seats.')]);
    expect((await projection()).rows).toHaveLength(2);
  });
});
