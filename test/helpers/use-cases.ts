import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monotonicFactory } from 'ulid';
import { afterAll, beforeAll } from 'vitest';
import { FileArchiveStore } from '../../src/archive/file-store.ts';
import { writeBatch } from '../../src/archive/index.ts';
import { commitBatch } from '../../src/consolidation/commit.ts';
import { planRun } from '../../src/consolidation/plan-run.ts';
import { replayBatch } from '../../src/consolidation/replay-batch.ts';
import type { RawRecordInput } from '../../src/contracts/raw-record.ts';
import { openDb } from '../../src/db/index.ts';
import { createHashingEmbedder } from '../../src/embeddings/hashing.ts';
import { createDeterministicEngine } from '../../src/engine/deterministic.ts';
import type { Ports } from '../../src/ports.ts';

/** Vector width of the unit-test note store: small, so PGlite stays fast. */
export const DIMENSION = 8;

export interface UseCasePorts extends Ports {
  close(): Promise<void>;
}

/** The use cases' ports without a running service: in-memory PGlite, a file archive in a temp dir, no model. */
export async function openUseCasePorts(): Promise<UseCasePorts> {
  const db = await openDb({ kind: 'pglite', dataDir: ':memory:' }, { dimension: DIMENSION });
  const root = await mkdtemp(join(tmpdir(), 'nocturne-use-cases-'));
  const archive = new FileArchiveStore(root);
  let n = 0;
  return {
    db,
    archive,
    embedder: createHashingEmbedder(DIMENSION),
    engine: createDeterministicEngine(),
    newId: () => `note-${String(++n).padStart(6, '0')}`,
    clock: () => new Date('2026-11-05T12:00:00Z'),
    async close() {
      await db.close();
      await archive.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/**
 * The ports of one test file: opened before its first test (PGlite takes seconds to start) and
 * closed after its last. The returned object is filled in place, so tests use it directly.
 */
export function portsForThisFile(): UseCasePorts {
  const ports = {} as UseCasePorts;
  beforeAll(async () => {
    Object.assign(ports, await openUseCasePorts());
  }, 120_000);
  afterAll(async () => ports.close?.());
  return ports;
}

const START = Date.parse('2026-11-02T08:00:00Z');
const nextId = monotonicFactory(() => 0.5);
let sessions = 0;

/**
 * One session in which a user states a lasting preference and the task succeeds: what the
 * deterministic engine turns into one note scoped to that user.
 */
export function preferenceSession(
  tenantId: string,
  userId: string,
  preference = 'Please always show me reports as a table, not prose.',
): RawRecordInput[] {
  const session = ++sessions;
  const sessionId = `session-${session}`;
  const steps: Array<Partial<RawRecordInput>> = [
    {
      kind: 'user_message',
      text: 'Please always show me reports as a table, not prose.',
      source: 'user',
      role: 'user',
    },
    { kind: 'agent_message', text: 'Understood. | Month | Total |', source: 'agent', role: 'assistant' },
    { kind: 'task_outcome', source: 'system', outcome: { status: 'success' } },
  ];
  return steps.map((step, i) => {
    const observed = START + session * 600_000 + i * 20_000;
    return {
      id: nextId(observed),
      tenantId,
      userId,
      agentId: 'billing-assistant',
      sessionId,
      taskId: `${sessionId}-t1`,
      taskType: 'invoice_report',
      observedAt: new Date(observed).toISOString(),
      recordedAt: new Date(observed + 1500).toISOString(),
      ...step,
    } as RawRecordInput;
  });
}

export async function archiveRecords(ports: Pick<Ports, 'archive'>, records: RawRecordInput[]): Promise<void> {
  const tenantId = records[0]?.tenantId ?? 'acme';
  await writeBatch(ports.archive, { tenantId, producer: 'unit', records, now: new Date(START) });
}

let tenants = 0;
/** A tenant id no other test in this process uses. */
export const freshTenantId = (label: string): string => `${label}-${process.pid}-${++tenants}`;

/** Plans, replays and commits one run over what the tenant's archive holds now: the notes a consolidation writes. */
export async function consolidate(ports: Ports, tenantId: string, runId: string): Promise<void> {
  await planWholeArchive(ports, tenantId, runId);
  await replayBatch(ports, { runId, tenantId, batchNo: 0, llmTokensLeft: 0 });
  await commitBatch(ports, { runId, tenantId, batchNo: 0, actor: 'consolidate/test', staged: false });
}

/** Plans a run over everything the tenant's archive holds now (one batch for a small archive). */
export async function planWholeArchive(ports: Ports, tenantId: string, runId: string): Promise<void> {
  await planRun(ports, {
    runId,
    workflowId: `consolidate/${tenantId}/${runId}`,
    tenantId,
    window: {},
    budget: { maxEpisodes: 100, maxLlmTokens: 0, maxNoteChanges: 100, deadlineSeconds: 600 },
    trigger: 'manual',
    mode: 'active',
    seed: 1,
    now: '2026-11-05T12:00:00.000Z',
  });
}
