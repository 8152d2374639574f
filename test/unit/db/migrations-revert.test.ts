import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Db, migrationNames, openDb, revertMigrations, runMigrations } from '../../../src/db/index.ts';
import { unscoped } from '../../../src/db/unscoped.ts';

// Going back to an earlier release on the embedded store: the down sections of the migrations
// after 0016 run on PGlite too, and reverting past the last one without a down section changes
// nothing. The round trip with notes in the store runs on PostgreSQL (db-downgrade.test.ts).
const DIMENSION = 8;
const migrations = migrationNames();
const reversible = migrations.filter((name) => name > '0016_keyed-audit');
let db: Db;

async function applied(): Promise<string[]> {
  const { rows } = await unscoped(db).query(`SELECT name FROM pgmigrations ORDER BY id`);
  return rows.map((r) => z.object({ name: z.string() }).parse(r).name);
}

beforeEach(async () => {
  db = await openDb({ kind: 'pglite', dataDir: ':memory:' }, { dimension: DIMENSION });
});

afterEach(async () => {
  await db.close();
});

describe('revertMigrations', () => {
  it('reverts the migrations after 0016 newest first, and they apply again', async () => {
    const reverted = await revertMigrations(db, { dimension: DIMENSION, count: reversible.length });
    expect(reverted).toEqual([...reversible].reverse());
    expect((await applied()).at(-1)).toBe('0016_keyed-audit');
    expect(await runMigrations(db, { dimension: DIMENSION })).toEqual(reversible);
    expect(await applied()).toEqual(migrations);
  });

  it('refuses to go past a migration without a down section, and reverts nothing then', async () => {
    await expect(revertMigrations(db, { dimension: DIMENSION, count: reversible.length + 1 })).rejects.toThrow(
      /disabled down migration on file: 0016_keyed-audit/,
    );
    expect(await applied()).toEqual(migrations);
  });

  it('asks for a positive count', async () => {
    await expect(revertMigrations(db, { dimension: DIMENSION, count: 0 })).rejects.toThrow(/positive integer, got 0/);
    expect(await applied()).toEqual(migrations);
  });
});
