import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyNoteBatch, type Db, insertRun, openDb, type Queryable, withTenant } from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';
import { STACK } from '../../src/stack/endpoints.ts';
import { createOp, freshTenant } from '../helpers/notes.ts';
import { dropSchema, stackDatabase } from '../helpers/pipeline.ts';

// The runtime login of the real server (DATABASE_URL of `nocturne stack up`): what a process
// holding it can and cannot do, whatever SQL it runs. The schema is migrated by the owner login.
const schema = `nocturne_privilege_${randomBytes(4).toString('hex')}`;
let db: Db;
let tenant: string;

const failure = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'succeeded',
    (e: unknown) => (e as Error).message,
  );

/** Tables of the schema holding tenant rows, read from the catalog (every table with tenant_id). */
async function tenantTables(): Promise<string[]> {
  const { rows } = await unscoped(db).query(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
        AND a.attname = 'tenant_id' AND NOT a.attisdropped ORDER BY 1`,
  );
  return rows.map((r) => (r as { name: string }).name);
}

async function countAll(q: Queryable, tables: string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const t of tables)
    counts[t] = ((await q.query(`SELECT count(*)::int AS n FROM ${t}`)).rows[0] as { n: number }).n;
  return counts;
}

beforeAll(async () => {
  db = await openDb(stackDatabase(), { dimension: STACK.embeddings.dimension, schema });
  tenant = freshTenant('priv');
  await applyNoteBatch(db, { tenantId: tenant, runId: 'run-1', batchNo: 0, actor: 'test', ops: [createOp()] });
  await insertRun(db, {
    runId: 'run-1',
    workflowId: `consolidate/${tenant}/2026-01-02`,
    tenantId: tenant,
    trigger: 'manual',
    budget: { maxEpisodes: 1, maxLlmTokens: 0, maxNoteChanges: 1, deadlineSeconds: 60 },
    spent: { episodes: 0, llmTokens: 0, noteChanges: 0, seconds: 0 },
    status: 'running',
    counts: { sampled: 0, replayed: 0, proposed: 0, rejected: 0, committed: 0, quarantined: 0 },
    startedAt: '2026-01-02T03:00:00.000Z',
  });
}, 120_000);

afterAll(async () => {
  await db?.close();
  await dropSchema(schema);
});

describe('the runtime login', () => {
  it('is no superuser, cannot bypass row-level security, and can act as the app role only', async () => {
    const { rows } = await unscoped(db).query(
      `SELECT rolsuper, rolbypassrls, rolcreaterole, rolcreatedb,
              (SELECT string_agg(r.rolname, ',' ORDER BY r.rolname) FROM pg_auth_members m
                 JOIN pg_roles r ON r.oid = m.roleid WHERE m.member = u.oid) AS roles
         FROM pg_roles u WHERE u.rolname = current_user`,
    );
    expect(rows).toEqual([
      { rolsuper: false, rolbypassrls: false, rolcreaterole: false, rolcreatedb: false, roles: 'nocturne_app' },
    ]);
    const owner = STACK.postgres.owner;
    expect(await failure(unscoped(db).query(`SET ROLE ${owner}`))).toMatch(/permission denied/);
    expect(await failure(unscoped(db).query(`SET SESSION AUTHORIZATION ${owner}`))).toMatch(/permission denied/);
    expect(await failure(unscoped(db).query(`COPY (SELECT 1) TO PROGRAM 'true'`))).toMatch(/permission denied/);
  });

  it('reads 0 rows of every tenant table without a tenant, which the tenant itself sees', async () => {
    const tables = await tenantTables();
    expect(tables.length).toBeGreaterThanOrEqual(15);
    const inside = await withTenant(db, tenant, (tx) => countAll(tx, tables));
    expect(inside).toMatchObject({ notes: 1, note_versions: 1, audit_log: 1, runs: 1 });
    const outside = await countAll(unscoped(db), tables);
    expect(outside).toEqual(Object.fromEntries(tables.map((t) => [t, 0])));
  });

  it('does not escape with RESET ROLE inside a tenant transaction', async () => {
    const tables = await tenantTables();
    const afterReset = await unscoped(db).transaction(async (tx) => {
      await tx.query('SET LOCAL ROLE nocturne_app');
      await tx.query('RESET ROLE');
      return countAll(tx, tables);
    });
    expect(afterReset).toEqual(Object.fromEntries(tables.map((t) => [t, 0])));
    const error = await failure(
      withTenant(db, tenant, async (tx) => {
        await tx.query('RESET ROLE');
        await tx.query(`UPDATE note_versions SET claim = 'rewritten'`);
      }),
    );
    expect(error).toMatch(/permission denied/);
  });

  it('cannot change the schema', async () => {
    expect(await failure(unscoped(db).query('CREATE TABLE intruder (x int)'))).toMatch(/permission denied/);
    expect(await failure(unscoped(db).query('ALTER TABLE note_versions NO FORCE ROW LEVEL SECURITY'))).toMatch(
      /must be owner/,
    );
    expect(await failure(unscoped(db).query('DROP POLICY tenant_isolation ON notes'))).toMatch(/must be owner/);
  });
});

describe('the definer functions', () => {
  it('are owned by a login that is no superuser', async () => {
    const { rows } = await unscoped(db).query(
      `SELECT p.proname AS name, r.rolname AS owner, r.rolsuper AS superuser
         FROM pg_proc p JOIN pg_roles r ON r.oid = p.proowner
        WHERE p.pronamespace = current_schema()::regnamespace AND p.prosecdef ORDER BY 1`,
    );
    expect(rows.map((r) => (r as { name: string }).name)).toEqual([
      'nocturne_redact_audit',
      'nocturne_scrub_erased_notes',
      'nocturne_scrub_run_work',
      'nocturne_scrub_subject',
    ]);
    for (const r of rows) expect(r).toMatchObject({ owner: STACK.postgres.owner, superuser: false });
  });
});
