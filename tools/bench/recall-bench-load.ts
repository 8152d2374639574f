import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { z } from 'zod';
import type { Db } from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';
import { POINTER_COPY_COLUMNS, VERSION_COPY_COLUMNS } from './recall-bench-csv.ts';
import type { SyntheticCorpus } from './recall-bench-data.ts';
import { elapsedMs } from './recall-bench-stats.ts';

export const HNSW_INDEX = 'note_versions_embedding_hnsw';
/** The HNSW build keeps its graph in maintenance_work_mem; spilling makes it many times slower. */
export const BUILD_MAINTENANCE_WORK_MEM = '1GB';
const COPY_CHUNK = 1000;

/** One COPY connection on the bench schema (as the bench owner: no row-level security on load). */
export async function copyClient(url: string, schema: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
  await client.connect();
  return client;
}

async function copyLines(
  client: pg.Client,
  table: string,
  columns: readonly string[],
  chunks: Iterable<string>,
  onChunk: () => void,
): Promise<void> {
  const sink = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN WITH (FORMAT csv)`));
  const counted = function* () {
    for (const chunk of chunks) {
      yield chunk;
      onChunk();
    }
  };
  await pipeline(Readable.from(counted()), sink);
}

const IndexDef = z.object({ indexdef: z.string() });

/**
 * Loads the corpus with the HNSW index dropped and then rebuilds it from its own definition: a
 * bulk build is what an operator does for a large import, and inserting 100k vectors one by one
 * into the graph would dominate the run. The index is the migration's, unchanged.
 */
export async function loadCorpus(
  db: Db,
  client: pg.Client,
  corpus: SyntheticCorpus,
  report: (phase: string, done: number, total: number) => void,
) {
  const { rows } = await unscoped(db).query(
    `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1`,
    [HNSW_INDEX],
  );
  const indexDefinition = IndexDef.parse(rows[0]).indexdef;
  await unscoped(db).query(`DROP INDEX ${HNSW_INDEX}`);
  // COPY refuses tables whose row-level security applies to the loader; the owner lifts FORCE
  // on its own benchmark schema while loading and puts it back before any query is measured.
  await client.query('ALTER TABLE note_versions NO FORCE ROW LEVEL SECURITY');
  await client.query('ALTER TABLE notes NO FORCE ROW LEVEL SECURITY');

  const started = process.hrtime.bigint();
  const versionRows = corpus.versionRows;
  let done = 0;
  await copyLines(client, 'note_versions', VERSION_COPY_COLUMNS, corpus.versionLines(COPY_CHUNK), () =>
    report('load note versions', (done = Math.min(done + COPY_CHUNK, versionRows)), versionRows),
  );
  const notes = corpus.tenants.reduce((s, t) => s + t.notes, 0);
  done = 0;
  await copyLines(client, 'notes', POINTER_COPY_COLUMNS, corpus.pointerLines(COPY_CHUNK * 10), () =>
    report('load current pointers', (done = Math.min(done + COPY_CHUNK * 10, notes)), notes),
  );
  await client.query('ALTER TABLE note_versions FORCE ROW LEVEL SECURITY');
  await client.query('ALTER TABLE notes FORCE ROW LEVEL SECURITY');
  const loadSeconds = elapsedMs(started) / 1000;

  report('build HNSW index', 0, 1);
  await client.query(`SET maintenance_work_mem = '${BUILD_MAINTENANCE_WORK_MEM}'`);
  const buildStarted = process.hrtime.bigint();
  await client.query(indexDefinition);
  const indexBuildSeconds = elapsedMs(buildStarted) / 1000;
  await client.query(`RESET maintenance_work_mem`);
  report('build HNSW index', 1, 1);
  // Statistics and hint bits, as autovacuum would have left them by the time such a table
  // serves queries; without it the first reads of every page also write it back.
  await client.query(`VACUUM (ANALYZE) note_versions`);
  await client.query(`VACUUM (ANALYZE) notes`);
  return { loadSeconds, indexBuildSeconds, indexDefinition };
}
