import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb, runMigrations, withTenant } from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';
import { STACK } from '../../src/stack/endpoints.ts';
import { dropSchema, openOwnerDb, stackDatabase } from '../helpers/pipeline.ts';

// An existing store upgraded across the recall projection: notes written by a release that
// stopped at migration 0012 must be recallable once the store is migrated to the latest schema,
// without a manual rebuild. The store is the real server, migrated by the owner login.
const schema = `nocturne_upgrade_${randomBytes(4).toString('hex')}`;
const tenant = `upgrade-${randomBytes(3).toString('hex')}`;
const dimension = STACK.embeddings.dimension;
/** Migrations 0001–0012: the schema before the recall projection (0013). */
const BEFORE_PROJECTION = 12;
let owner: Db;
let db: Db;

/** One active note and one retired note, written as the older release wrote them. */
async function writeOldNotes(): Promise<void> {
  await unscoped(owner).transaction(async (tx) => {
    await tx.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenant]);
    for (const [noteId, status] of [
      ['n-active', 'active'],
      ['n-retired', 'retired'],
    ]) {
      await tx.query(
        `INSERT INTO note_versions (tenant_id, note_id, version, status, scope_level, scope_key, kind, claim,
           evidence, source_kind, confidence, importance, valid_from, source_count, last_confirmed_at)
         VALUES ($1, $2, 1, $3, 'tenant', $1, 'fact', $4, '[]', 'tool_fact', 0.8, 0.5, now(), 1, now())`,
        [tenant, noteId, status, `The billing API returns amounts in cents (${noteId}).`],
      );
      await tx.query(`INSERT INTO notes (tenant_id, note_id, current_version, status) VALUES ($1, $2, 1, $3)`, [
        tenant,
        noteId,
        status,
      ]);
    }
  });
}

beforeAll(async () => {
  owner = openOwnerDb(schema);
  const applied = await runMigrations(owner, { dimension, schema, count: BEFORE_PROJECTION });
  expect(applied.at(-1)).toMatch(/^0012_/);
  await writeOldNotes();
  db = await openDb(stackDatabase(), { dimension, schema });
}, 120_000);

afterAll(async () => {
  await db?.close();
  await owner?.close();
  await dropSchema(schema);
});

describe('upgrading a store written before the recall projection', () => {
  it('projects its active notes (and only those) into note_recall', async () => {
    const { rows } = await withTenant(db, tenant, (tx) =>
      tx.query('SELECT note_id, version FROM note_recall ORDER BY note_id'),
    );
    expect(rows).toEqual([{ note_id: 'n-active', version: 1 }]);
  });

  it('leaves row-level security forced on the tables it read', async () => {
    const { rows } = await unscoped(owner).query(
      `SELECT relname, relforcerowsecurity AS forced FROM pg_class
        WHERE relnamespace = $1::regnamespace AND relname IN ('notes', 'note_versions', 'note_recall') ORDER BY 1`,
      [schema],
    );
    expect(rows).toEqual([
      { relname: 'note_recall', forced: true },
      { relname: 'note_versions', forced: true },
      { relname: 'notes', forced: true },
    ]);
  });
});
