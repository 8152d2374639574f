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

/** The whole-table index of note_versions: the unfiltered baseline's (and point-in-time recall's). */
export const HNSW_INDEX = 'note_versions_embedding_hnsw';
/** Index names of the recall projection's partitions (migration 0013), e.g. note_recall_p07_hnsw. */
export const PROJECTION_HNSW = /note_recall_p\d+_hnsw/;
const PROJECTION_PARENT_HNSW = 'note_recall_hnsw';
/**
 * The HNSW build keeps its graph in maintenance_work_mem; spilling makes it many times slower
 * (the 1.1M-vector note_versions graph took an hour with 1 GB). pgvector needs about 2.2 KB per
 * 384-dimension element (the vector, 2m neighbour candidates on layer 0, the element header);
 * 3 KB per version row leaves room, and 1 GB stays the floor.
 */
export function buildMaintenanceWorkMem(versionRows: number): string {
  const megabytes = Math.ceil((versionRows * 3 * 1024) / (1024 * 1024));
  return `${Math.max(1024, megabytes)}MB`;
}
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

/** Definitions of the HNSW indexes the load drops and rebuilds: note_versions', the projection parent's and every partition's. */
async function hnswDefinitions(db: Db): Promise<string[]> {
  const { rows } = await unscoped(db).query(
    `SELECT indexdef FROM pg_indexes
      WHERE schemaname = current_schema() AND (indexname IN ($1, $2) OR indexname ~ '^note_recall_p[0-9]+_hnsw$')
      ORDER BY indexname`,
    [HNSW_INDEX, PROJECTION_PARENT_HNSW],
  );
  return rows.map((r) => IndexDef.parse(r).indexdef);
}

/**
 * Loads the corpus with the HNSW indexes dropped and then rebuilds them from their own
 * definitions: a bulk build is what an operator does for a large import, and inserting 100k
 * vectors one by one into the graphs would dominate the run. The indexes are the migrations',
 * unchanged. The recall projection's trigger is disabled for the COPY and the projection is
 * then derived in one statement, as `nocturne index notes --rebuild` derives a tenant's rows.
 */
export async function loadCorpus(
  db: Db,
  client: pg.Client,
  corpus: SyntheticCorpus,
  report: (phase: string, done: number, total: number) => void,
) {
  const all = await hnswDefinitions(db);
  // The parent's index (ON ONLY) holds no graph: it is declared again after the builds, to attach them.
  const parentDefinition = all.find((d) => indexNameOf(d) === PROJECTION_PARENT_HNSW);
  if (parentDefinition === undefined) throw new Error(`no index ${PROJECTION_PARENT_HNSW}: migrations not applied?`);
  const definitions = all.filter((d) => d !== parentDefinition);
  // Dropping the parent's index drops every partition's; they are rebuilt one by one and attached again.
  await unscoped(db).query(`DROP INDEX ${HNSW_INDEX}, ${PROJECTION_PARENT_HNSW}`);
  await client.query(`ALTER TABLE notes DISABLE TRIGGER USER`);
  // COPY refuses tables whose row-level security applies to the loader; the owner lifts FORCE
  // on its own benchmark schema while loading and puts it back before any query is measured.
  await forceRowLevelSecurity(client, false);

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
  report('derive recall projection', 0, 1);
  const projectionStarted = process.hrtime.bigint();
  await client.query(`INSERT INTO note_recall ${DERIVE_PROJECTION}`);
  const projectionSeconds = elapsedMs(projectionStarted) / 1000;
  await client.query(`ALTER TABLE notes ENABLE TRIGGER USER`);
  await forceRowLevelSecurity(client, true);
  const loadSeconds = elapsedMs(started) / 1000;

  await client.query(`SET maintenance_work_mem = '${buildMaintenanceWorkMem(corpus.versionRows)}'`);
  const buildSeconds: Record<string, number> = {};
  for (const [i, def] of definitions.entries()) {
    report('build HNSW indexes', i, definitions.length);
    const buildStarted = process.hrtime.bigint();
    await client.query(def);
    buildSeconds[indexNameOf(def)] = elapsedMs(buildStarted) / 1000;
  }
  await client.query(`RESET maintenance_work_mem`);
  await client.query(parentDefinition);
  for (const def of definitions.filter((d) => PROJECTION_HNSW.test(indexNameOf(d))))
    await client.query(`ALTER INDEX ${PROJECTION_PARENT_HNSW} ATTACH PARTITION ${indexNameOf(def)}`);
  report('build HNSW indexes', definitions.length, definitions.length);
  // Statistics and hint bits, as autovacuum would have left them by the time such a table
  // serves queries; without it the first reads of every page also write it back.
  for (const table of ['note_versions', 'notes', 'note_recall']) await client.query(`VACUUM (ANALYZE) ${table}`);
  const versionsBuild = buildSeconds[HNSW_INDEX] ?? 0;
  return {
    loadSeconds,
    projectionSeconds,
    indexBuildSeconds: versionsBuild,
    projectionIndexBuildSeconds: Object.values(buildSeconds).reduce((a, b) => a + b, 0) - versionsBuild,
    indexDefinition: definitions.find((d) => indexNameOf(d) === HNSW_INDEX) ?? '',
    projectionIndexDefinition: definitions.find((d) => PROJECTION_HNSW.test(indexNameOf(d))) ?? '',
  };
}

/** FORCE row-level security on or off for the tables the load writes: versions, pointers, the projection and its partitions. */
async function forceRowLevelSecurity(client: pg.ClientBase, on: boolean): Promise<void> {
  const { rows } = await client.query(
    `SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'note_recall'::regclass`,
  );
  const partitions = rows.map((r) => z.object({ name: z.string() }).parse(r).name);
  for (const table of ['note_versions', 'notes', 'note_recall', ...partitions])
    await client.query(`ALTER TABLE ${table} ${on ? '' : 'NO '}FORCE ROW LEVEL SECURITY`);
}

const indexNameOf = (definition: string): string => /^CREATE INDEX (\S+)/.exec(definition)?.[1] ?? '';

/** The projection's rows as the migration and the rebuild derive them: current, active versions. */
const DERIVE_PROJECTION = `(tenant_id, note_id, version, scope_level, scope_key, valid_from, valid_until, fts, embedding)
  SELECT v.tenant_id, v.note_id, v.version, v.scope_level, v.scope_key, v.valid_from, v.valid_until, v.fts, v.embedding
    FROM notes n
    JOIN note_versions v ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
   WHERE n.status = 'active' AND v.status = 'active'`;
