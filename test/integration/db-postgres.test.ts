import { RECORD_VECTOR_FORM } from '../../policies/record-recall.ts';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { insertIndexedRecords, openDb, withTenant } from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';
import { STACK } from '../../src/stack/endpoints.ts';
import { describeDbContract } from '../helpers/db-contract.ts';
import { freshTenant } from '../helpers/notes.ts';
import { indexedRecordRow } from '../helpers/record-index.ts';
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

describe('postgres schema', () => {
  it('keeps the vectors recall scans in their rows: the index, projection (partitions included) and versions store MAIN', async () => {
    const db = await openDb(stackDatabase(), { dimension: DIMENSION, schema });
    const owner = openOwnerDb(schema);
    try {
      const { rows } = await unscoped(owner).query(
        `SELECT c.relname AS table, a.attstorage AS storage
           FROM pg_attribute a
           JOIN pg_class c ON c.oid = a.attrelid
           JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND a.attname = 'embedding' AND NOT a.attisdropped AND c.relkind IN ('r', 'p')
          ORDER BY c.relname`,
        [schema],
      );
      // The embedding cache is read by content hash, one row at a time: its vectors may live out of line.
      const columns = (rows as Array<{ table: string; storage: string }>).filter((c) => c.table !== 'embedding_cache');
      const tables = columns.map((c) => c.table);
      expect(tables).toEqual(expect.arrayContaining(['note_recall', 'note_versions', 'record_index']));
      // The projection's partitions carry the column too, and take the setting with it.
      expect(tables.filter((t) => t.startsWith('note_recall_')).length).toBeGreaterThan(0);
      expect(columns.filter((c) => c.storage !== 'm')).toEqual([]);
    } finally {
      await owner.close();
      await db.close();
    }
  });
});

describe('postgres record index', () => {
  it("keeps a record's full-text vector in its row, beside the vector (BM25 reads it for every pooled row)", async () => {
    const db = await openDb(stackDatabase(), { dimension: DIMENSION, schema });
    const tenantId = freshTenant('record-inline');
    // About the size of a conversational turn: the row is over PostgreSQL's default 2 kB target.
    const text = 'Caroline went to the LGBTQ support group yesterday and said it was powerful, '.repeat(3);
    try {
      const toasted = await withTenant(db, tenantId, async (tx) => {
        await insertIndexedRecords(tx, {
          tenantId,
          model: 'test',
          form: RECORD_VECTOR_FORM,
          records: [
            indexedRecordRow(DIMENSION, {
              recordId: 'r-1',
              objectKey: 'raw/t.jsonl.gz',
              sessionId: 's-1',
              observedAt: '2023-05-08T13:56:00.000Z',
              speaker: 'Caroline',
              text,
              embedding: Array.from({ length: DIMENSION }, (_, i) => Math.sin(i + 1)),
            }),
          ],
        });
        const { rows } = await tx.query(
          `SELECT pg_column_size(r.*) AS bytes, pg_column_toast_chunk_id(fts) IS NOT NULL AS fts_out,
                  pg_column_toast_chunk_id(embedding) IS NOT NULL AS vector_out
             FROM record_index r WHERE record_id = 'r-1'`,
        );
        return rows[0] as { bytes: number; fts_out: boolean; vector_out: boolean };
      });
      expect(toasted.bytes).toBeGreaterThan(2100);
      expect(toasted).toMatchObject({ fts_out: false, vector_out: false });
    } finally {
      await db.close();
    }
  });
});

afterAll(async () => {
  await dropSchema(schema);
});
