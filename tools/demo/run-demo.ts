import type { Client } from '@temporalio/client';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RollbackResult } from '../../activities/rollback.ts';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';
import {
  ingestJsonlFiles,
  scanTenant,
  type ArchiveStore,
  type IngestResult,
  type TenantScan,
} from '../../src/archive/index.ts';
import { parseConfig } from '../../src/config.ts';
import type { NoteVersion } from '../../src/contracts/note.ts';
import { consolidationId, rollbackNoteId } from '../../src/contracts/workflow-ids.ts';
import { listNotes, verifyAuditChain, type AuditChainReport, type Db } from '../../src/db/index.ts';
import { recall, type RecallResult } from '../../src/recall/index.ts';
import { openArchiveStore, openNoteStore, withTemporalClient } from '../../src/runtime.ts';
import { createWorker } from '../../src/worker.ts';
import { startDemoEmbeddings } from './demo-embeddings.ts';
import { startDevServer } from './dev-server.ts';
import { DEMO_TENANTS, demoRecords } from './sample.ts';

export interface DemoOptions {
  dataDir: string;
  log: (line: string) => void;
  /** Called with the Temporal UI address once everything ran; the server stops when it resolves. */
  linger?: (uiUrl: string) => Promise<void>;
}

export interface DemoReport {
  temporalUi: string;
  embedder: string;
  tenants: Array<{
    tenantId: string;
    ingest: Pick<IngestResult, 'lines' | 'accepted' | 'written' | 'rejected'>;
    scan: Pick<TenantScan, 'objects' | 'records' | 'priorityRecords' | 'kinds'>;
    run: ConsolidateResult;
    notes: NoteVersion[];
    auditChain: AuditChainReport;
  }>;
  rollback?: {
    tenantId: string;
    /** The bad new note: it superseded an older one in the run. */
    noteId: string;
    claim: string;
    first: RollbackResult;
    repeated: RollbackResult;
    statusAfter: string;
    /** What recall can see afterwards: one consistent active set. */
    activeAfter: NoteVersion[];
  };
  /** What the online agent gets back for a new task, after the runs. */
  recall?: RecallResult;
}

/** The question the agent asks before its next invoice task. */
const DEMO_QUERY = 'How does the billing API return invoice amounts?';

/** Lines a careless producer might send: the archive rejects them with a reason, and keeps the rest. */
const MALFORMED_LINES = ['{"id": "not-a-ulid", "kind": "user_message"', '{"tenantId": "acme", "kind": "telepathy"}'];

/**
 * The main job on the embedded default: a Temporal dev server started and stopped here,
 * PGlite for the note store, a file:// archive, the deterministic note engine.
 */
export async function runDemo(opts: DemoOptions): Promise<DemoReport> {
  const dataDir = path.resolve(opts.dataDir);
  await rm(dataDir, { recursive: true, force: true });
  await mkdir(dataDir, { recursive: true });
  opts.log('1/6 starting a Temporal dev server for this demo …');
  const server = await startDevServer(path.join(dataDir, 'temporal'), opts.log);
  const embeddings = await startDemoEmbeddings(path.join(dataDir, 'embeddings'), opts.log);
  try {
    const config = parseConfig({
      TEMPORAL_ADDRESS: server.address,
      NOCTURNE_TASK_QUEUE: 'nocturne-demo',
      NOCTURNE_DATA_DIR: dataDir,
      NOCTURNE_ARCHIVE_URI: `file://${path.join(dataDir, 'archive')}`,
      ...embeddings.env,
      NOCTURNE_PRODUCER: 'demo-agent',
    });
    const archive = await openArchiveStore(config);
    const db = await openNoteStore(config);
    try {
      opts.log('2/6 archiving the bundled sample (two tenants, corrections, tool errors, a planted injection) …');
      const archived = await archiveSample(archive, dataDir);
      opts.log('3/6 starting a worker and consolidating each tenant …');
      const handle = await createWorker(config, { db, log: opts.log, embeddingFallback: 'lexical' });
      const report = await handle.runUntil(() =>
        withTemporalClient(config, (client) =>
          consolidateAndRollBack(client, config.temporal.taskQueue, db, archived, opts.log),
        ),
      );
      const recalled = await recall(db, handle.embedder, {
        tenantId: 'acme',
        query: DEMO_QUERY,
        k: 3,
        tokenBudget: 200,
        taskId: 'demo-next-task',
      });
      await opts.linger?.(server.uiUrl);
      return { temporalUi: server.uiUrl, embedder: handle.embedder.name, ...report, recall: recalled };
    } finally {
      await db.close();
      await archive.close();
    }
  } finally {
    await embeddings.stop();
    await server.stop();
  }
}

type Archived = Map<string, { ingest: IngestResult; scan: TenantScan }>;

async function archiveSample(archive: ArchiveStore, dataDir: string): Promise<Archived> {
  const out: Archived = new Map();
  for (const tenantId of DEMO_TENANTS) {
    const lines = demoRecords()
      .filter((r) => r.tenantId === tenantId)
      .map((r) => JSON.stringify(r));
    if (tenantId === 'acme') lines.push(...MALFORMED_LINES);
    const file = path.join(dataDir, `${tenantId}.jsonl`);
    await writeFile(file, `${lines.join('\n')}\n`);
    const ingest = await ingestJsonlFiles(archive, { tenantId, producer: 'demo-agent', paths: [file] });
    out.set(tenantId, { ingest, scan: await scanTenant(archive, tenantId) });
  }
  return out;
}

async function consolidateAndRollBack(
  client: Client,
  taskQueue: string,
  db: Db,
  archived: Archived,
  log: (l: string) => void,
) {
  const tenants: DemoReport['tenants'] = [];
  for (const [tenantId, { ingest, scan }] of archived) {
    log(`4/6 consolidation run for ${tenantId} …`);
    const run = (await client.workflow.execute('consolidateTenantWorkflow', {
      taskQueue,
      workflowId: consolidationId(tenantId, 'demo'),
      args: [{ tenantId, trigger: 'manual', seed: 1, budget: { maxEpisodes: 50, maxNoteChanges: 50 } }],
    })) as ConsolidateResult;
    const notes = (await listNotes(db, { tenantId, limit: 100 })).notes;
    tenants.push({ tenantId, ingest, scan, run, notes, auditChain: await verifyAuditChain(db, tenantId) });
  }
  log('5/6 rolling back the bad new note from the Temporal side, twice (the second is a no-op) …');
  const acme = tenants.find((t) => t.tenantId === 'acme');
  // The run let a correction supersede an older note; the operator decides the correction was wrong.
  const bad = acme?.notes.find((n) => acme.notes.some((o) => o.status === 'superseded' && o.supersededBy === n.noteId));
  let rollback: DemoReport['rollback'];
  if (acme && bad) {
    // One JSON input, as pasted into the Temporal UI: no toVersion on a version-1 note retires it.
    const input = {
      tenantId: 'acme',
      noteId: bad.noteId,
      reason: 'v2 amounts are only in dollars for API v2 calls',
      operator: 'demo-operator',
    };
    const first = (await client.workflow.execute('rollbackNoteWorkflow', {
      taskQueue,
      workflowId: rollbackNoteId('acme', bad.noteId, '1'),
      args: [input],
    })) as RollbackResult;
    const repeated = (await client.workflow.execute('rollbackNoteWorkflow', {
      taskQueue,
      workflowId: rollbackNoteId('acme', bad.noteId, '2'),
      args: [input],
    })) as RollbackResult;
    const notesAfter = (await listNotes(db, { tenantId: 'acme', limit: 100 })).notes;
    rollback = {
      tenantId: 'acme',
      noteId: bad.noteId,
      claim: bad.claim,
      first,
      repeated,
      statusAfter: notesAfter.find((n) => n.noteId === bad.noteId)?.status ?? 'missing',
      activeAfter: notesAfter.filter((n) => n.status === 'active'),
    };
    acme.auditChain = await verifyAuditChain(db, 'acme');
  }
  log('6/6 verifying the audit hash chains …');
  return { tenants, ...(rollback ? { rollback } : {}) };
}
