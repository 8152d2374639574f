import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { openArchive, type ArchiveStore } from '../../src/archive/index.ts';
import { parseConfig, type Config } from '../../src/config.ts';
import { createPgDb, dropSchema as dropSchemaAs, openDb, type Db } from '../../src/db/index.ts';
import { stackEnv } from '../../src/stack/endpoints.ts';
import { createWorker } from '../../src/worker.ts';

type PostgresDatabase = Extract<Config['database'], { kind: 'postgres' }>;

/** The stack's note store: the runtime login, migrated by the owner login. */
export function stackDatabase(): PostgresDatabase {
  return parseConfig(stackEnv()).database as PostgresDatabase;
}

/** The owner login's URL (owns the schemas and tables; still under FORCEd row-level security). */
export function ownerUrl(): string {
  return stackDatabase().migrationUrl as string;
}

/** A store on `schema` as the owner login, not migrated: what tests use to tamper or look underneath. */
export function openOwnerDb(schema: string): Db {
  return createPgDb({ url: ownerUrl(), schema, maxConnections: 2 });
}

/** Drops a test schema as its owner. */
export async function dropSchema(schema: string): Promise<void> {
  await dropSchemaAs(ownerUrl(), schema);
}

/**
 * Configuration for one real-stack suite: the stack's endpoints with an S3 prefix, a task
 * queue and a PostgreSQL schema of its own, so suites and reruns never see each other's data.
 */
export function pipelineConfig(name: string): { config: Config; schema: string } {
  const suffix = randomBytes(4).toString('hex');
  const config = parseConfig({
    ...stackEnv(),
    NOCTURNE_ARCHIVE_URI: `s3://nocturne/${name}-${suffix}`,
    NOCTURNE_TASK_QUEUE: `${name}-${suffix}`,
  });
  return { config, schema: `nocturne_${name}_${suffix}` };
}

export interface Pipeline {
  db: Db;
  archive: ArchiveStore;
  client: Client;
  close(): Promise<void>;
}

/**
 * The real pipeline in this process: note store, archive, a running worker and a client.
 * Closing it drops its schema: a suite's data goes with the suite, so a machine that runs the
 * tests again and again does not gather their schemas.
 */
export async function startPipeline(config: Config, schema: string): Promise<Pipeline> {
  const db = await openDb(config.database, {
    dimension: config.embedding.dimension,
    schema,
    ...(config.audit.key ? { auditKey: config.audit.key } : {}),
  });
  const archive = openArchive(config.archive);
  const handle = await createWorker(config, { db, log: () => {} });
  const running = handle.run();
  const connection = await Connection.connect({ address: config.temporal.address });
  return {
    db,
    archive,
    client: new Client({ connection }),
    async close() {
      handle.worker.shutdown();
      await running;
      await connection.close();
      await db.close();
      await archive.close();
      await dropSchema(schema);
    },
  };
}

/**
 * The real pipeline of one test file: started before its first test and closed after its last.
 * The returned object is filled in place, so tests read `pipeline.db` and the rest directly.
 */
export function pipelineForThisFile(config: Config, schema: string): Pipeline {
  const pipeline = {} as Pipeline;
  beforeAll(async () => {
    Object.assign(pipeline, await startPipeline(config, schema));
  });
  afterAll(async () => pipeline.close?.());
  return pipeline;
}
