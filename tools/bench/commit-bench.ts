import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { ulid } from 'ulid';
import type { NoteContent } from '../../src/contracts/note.ts';
import { applyNoteBatch, createPgDb, type Db, type NoteOp, runMigrations, wrapPglite } from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';
import { NOTE_VERSION_COPY_COLUMNS } from './recall-bench-csv.ts';

export interface CommitBenchOptions {
  /** Notes to commit through the store and to COPY. @default 10000 */
  rows?: number;
  driver: 'postgres' | 'pglite';
  /** PostgreSQL URL (driver 'postgres'); the bench works in a schema of its own and drops it. */
  url?: string;
  /** Ops per applyNoteBatch call. @default 500 */
  batchSize?: number;
  /** Rows inserted one statement at a time; fewer than `rows` because this path is slow. @default min(rows, 2000) */
  singleRows?: number;
  /** @default 384 */
  dimension?: number;
  /** Notes with vectors reinforced in consolidation-sized batches. @default min(rows, 1300) */
  reinforceRows?: number;
  onProgress?: (phase: string, done: number, total: number) => void;
}

export interface Throughput {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
}

interface CommitBenchReport {
  driver: 'postgres' | 'pglite';
  batchSize: number;
  /** applyNoteBatch: per note one version, one pointer and one audit entry, in batch transactions. */
  store: Throughput;
  /** One INSERT of the version row per statement, autocommit (no pointer, no audit). */
  singleRowInserts: Throughput;
  /** A bare COPY of the version rows into an equivalent table (same columns and indexes). */
  copy: Throughput;
  /**
   * Reinforcing notes that have vectors, in batches of REINFORCE_BATCH (what a consolidation
   * batch commits): each writes a version (with its vector copied), moves the pointer, refreshes
   * the recall projection's row and appends an audit entry.
   */
  reinforce: Throughput;
  ratios: { storeVsSingleRow: number; storeVsCopy: number; reinforceVsSingleRow: number };
  /** Design §9 target for store vs single-row inserts. */
  target: { storeVsSingleRow: number; met: boolean };
}

const COLUMNS = NOTE_VERSION_COPY_COLUMNS;

const TENANT = 'bench';
/** Changes a consolidation batch of 50 episodes commits, about. */
const REINFORCE_BATCH = 65;
const RUN = 'bench-run';

function content(i: number): NoteContent {
  const hash = randomBytes(32).toString('hex');
  return {
    scope: { level: 'user', key: `user-${i % 97}` },
    kind: 'fact',
    claim: `Benchmark claim ${i}: the export tool needs the --utf8 flag for files from region ${i % 13}.`,
    evidence: [
      {
        recordId: ulid(),
        objectKey: `raw/tenant=${TENANT}/date=2026-01-01/bench-000001.jsonl.gz`,
        line: i + 1,
        contentHash: hash,
      },
    ],
    sourceKind: 'tool_fact',
    confidence: 0.8,
    importance: 0.5,
    validFrom: '2026-01-01T00:00:00.000Z',
    sourceCount: 1,
    lastConfirmedAt: '2026-01-01T00:00:00.000Z',
  };
}

/** The version row of a note, as the equivalent tables store it. */
function versionValues(noteId: string, c: NoteContent): unknown[] {
  return [
    TENANT,
    noteId,
    1,
    'active',
    c.scope.level,
    c.scope.key,
    c.kind,
    c.claim,
    JSON.stringify(c.evidence),
    c.sourceKind,
    c.confidence,
    c.importance,
    c.validFrom,
    null,
    null,
    c.sourceCount ?? 1,
    c.lastConfirmedAt,
    null,
    RUN,
  ];
}

const csvField = (v: unknown): string => (v === null ? '' : `"${String(v).replaceAll('"', '""')}"`);
const csvLine = (values: unknown[]): string => `${values.map(csvField).join(',')}\n`;

function throughput(rows: number, elapsedNs: bigint): Throughput {
  const seconds = Number(elapsedNs) / 1e9;
  return { rows, seconds: Number(seconds.toFixed(3)), rowsPerSecond: Math.round(rows / seconds) };
}

interface Harness {
  db: Db;
  /** COPY `csv` into `table` (CSV format, COLUMNS order). */
  copy(table: string, csv: string): Promise<void>;
  close(): Promise<void>;
}

async function postgresHarness(url: string, dimension: number): Promise<Harness> {
  const schema = `nocturne_bench_${randomBytes(4).toString('hex')}`;
  const db = createPgDb({ url, schema, maxConnections: 2 });
  await runMigrations(db, { dimension, schema });
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
  await client.connect();
  return {
    db,
    async copy(table, csv) {
      const sink = client.query(copyFrom(`COPY ${table} (${COLUMNS.join(', ')}) FROM STDIN WITH (FORMAT csv)`));
      await pipeline(Readable.from([csv]), sink);
    },
    async close() {
      await client.query(`DROP SCHEMA "${schema}" CASCADE`).finally(() => client.end());
      await db.close();
    },
  };
}

async function pgliteHarness(dimension: number): Promise<Harness> {
  const pglite = await PGlite.create({ extensions: { vector } });
  const db = wrapPglite(pglite);
  await runMigrations(db, { dimension });
  return {
    db,
    async copy(table, csv) {
      await pglite.query(`COPY ${table} (${COLUMNS.join(', ')}) FROM '/dev/blob' WITH (FORMAT csv)`, [], {
        blob: new Blob([csv]),
      });
    },
    close: () => db.close(),
  };
}

/**
 * Measures note commit throughput through the store against two baselines,
 * all in one run on one database: single-row autocommit inserts and a bare COPY of the same
 * version rows into tables with note_versions' columns and indexes (LIKE … INCLUDING ALL).
 */
export async function runCommitBench(opts: CommitBenchOptions): Promise<CommitBenchReport> {
  const rows = opts.rows ?? 10_000;
  const batchSize = opts.batchSize ?? 500;
  const singleRows = Math.min(opts.singleRows ?? 2000, rows);
  const dimension = opts.dimension ?? 384;
  if (opts.driver === 'postgres' && !opts.url) throw new Error('runCommitBench: driver postgres needs a url');
  const h =
    opts.driver === 'postgres' ? await postgresHarness(opts.url as string, dimension) : await pgliteHarness(dimension);
  try {
    await unscoped(h.db).query('CREATE TABLE bench_single (LIKE note_versions INCLUDING ALL)');
    await unscoped(h.db).query('CREATE TABLE bench_copy (LIKE note_versions INCLUDING ALL)');
    const notes = Array.from({ length: rows }, (_, i) => ({ noteId: ulid(), content: content(i) }));

    // The two paths alternate (one store batch, then its share of single-row inserts) so both
    // see the same machine load; measured back to back, a busy neighbour skews the ratio.
    const insert = `INSERT INTO bench_single (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;
    const batches = Math.ceil(rows / batchSize);
    let storeNs = 0n;
    let singleNs = 0n;
    let singleDone = 0;
    for (let b = 0; b < batches; b++) {
      const ops: NoteOp[] = notes
        .slice(b * batchSize, (b + 1) * batchSize)
        .map((n) => ({ op: 'create', noteId: n.noteId, content: n.content }));
      let started = process.hrtime.bigint();
      await applyNoteBatch(h.db, { tenantId: TENANT, runId: RUN, batchNo: b, actor: 'bench', ops });
      storeNs += process.hrtime.bigint() - started;
      const singleTarget = Math.round((singleRows * (b + 1)) / batches);
      started = process.hrtime.bigint();
      for (; singleDone < singleTarget; singleDone++) {
        const n = notes[singleDone] as (typeof notes)[number];
        await unscoped(h.db).query(insert, versionValues(n.noteId, n.content));
      }
      singleNs += process.hrtime.bigint() - started;
      opts.onProgress?.('store and single-row inserts', Math.min((b + 1) * batchSize, rows), rows);
    }
    const store = throughput(rows, storeNs);
    const singleRowInserts = throughput(singleRows, singleNs);

    const csv = notes.map((n) => csvLine(versionValues(n.noteId, n.content))).join('');
    const started = process.hrtime.bigint();
    await h.copy('bench_copy', csv);
    const copy = throughput(rows, process.hrtime.bigint() - started);

    const reinforce = await reinforceVectors(
      h.db,
      Math.min(opts.reinforceRows ?? 1300, rows),
      dimension,
      (done, total) => opts.onProgress?.('reinforce', done, total),
    );

    const ratio = (a: Throughput, b: Throughput): number => Number((a.rowsPerSecond / b.rowsPerSecond).toFixed(2));
    const storeVsSingleRow = ratio(store, singleRowInserts);
    return {
      driver: opts.driver,
      batchSize,
      store,
      singleRowInserts,
      copy,
      reinforce,
      ratios: {
        storeVsSingleRow,
        storeVsCopy: ratio(store, copy),
        reinforceVsSingleRow: ratio(reinforce, singleRowInserts),
      },
      target: { storeVsSingleRow: 5, met: storeVsSingleRow >= 5 },
    };
  } finally {
    await h.close();
  }
}

/** A unit vector of the bench's dimension (the graphs need vectors, not their meaning). */
function randomVector(dimension: number): number[] {
  const v = Array.from({ length: dimension }, () => Math.random() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** Creates `rows` notes with vectors (untimed), then times reinforcing each once, REINFORCE_BATCH at a time. */
async function reinforceVectors(
  db: Db,
  rows: number,
  dimension: number,
  onProgress: (done: number, total: number) => void,
): Promise<Throughput> {
  const runId = 'bench-reinforce';
  const noteIds = Array.from({ length: rows }, () => ulid());
  for (let at = 0, b = 0; at < rows; at += 500, b++) {
    const ops: NoteOp[] = noteIds
      .slice(at, at + 500)
      .map((noteId, i) => ({ op: 'create', noteId, content: content(at + i), embedding: randomVector(dimension) }));
    await applyNoteBatch(db, { tenantId: TENANT, runId: `${runId}-create`, batchNo: b, actor: 'bench', ops });
  }
  let ns = 0n;
  for (let at = 0, b = 0; at < rows; at += REINFORCE_BATCH, b++) {
    const ops: NoteOp[] = noteIds.slice(at, at + REINFORCE_BATCH).map((noteId) => ({
      op: 'newVersion',
      action: 'reinforce',
      noteId,
      expectedVersion: 1,
      changes: { sourceCount: 2 },
      reason: 'seen again',
    }));
    const started = process.hrtime.bigint();
    await applyNoteBatch(db, { tenantId: TENANT, runId, batchNo: b, actor: 'bench', ops });
    ns += process.hrtime.bigint() - started;
    onProgress(Math.min(at + REINFORCE_BATCH, rows), rows);
  }
  return throughput(rows, ns);
}
