import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb, withTenant } from '../../src/db/index.ts';
import { STACK } from '../../src/stack/endpoints.ts';
import { describeDbContract } from '../helpers/db-contract.ts';
import { freshTenant } from '../helpers/notes.ts';
import { dropSchema, openOwnerDb, stackDatabase } from '../helpers/pipeline.ts';

// The real PostgreSQL + pgvector of the local stack. Each run migrates a schema of its own, so
// reruns start from an empty store and the dimension test cannot disturb other suites.
const schema = `nocturne_test_${randomBytes(4).toString('hex')}`;
const DIMENSION = STACK.embeddings.dimension;

describeDbContract('postgres', () => openDb(stackDatabase(), { dimension: DIMENSION, schema }), {
  dimension: DIMENSION,
  makeOwnerDb: async () => openOwnerDb(schema),
});

describe('postgres driver', () => {
  it('runs concurrent tenant transactions on separate pooled connections', async () => {
    const db = await openDb(stackDatabase(), { dimension: DIMENSION, schema });
    try {
      const tenant = freshTenant();
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const pid = (hold: boolean) =>
        withTenant(db, tenant, async (tx) => {
          const { rows } = await tx.query('SELECT pg_backend_pid() AS pid');
          if (hold) await gate;
          return (rows[0] as { pid: number }).pid;
        });
      const first = pid(true);
      const second = await pid(false);
      release();
      expect(await first).not.toBe(second);
    } finally {
      await db.close();
    }
  });
});

afterAll(async () => {
  await dropSchema(schema);
});
