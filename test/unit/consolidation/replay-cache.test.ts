import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantPrefix, writeBatch } from '../../../src/archive/index.ts';
import { DATA_SUFFIX } from '../../../src/archive/keys.ts';
import { ArchiveObjectCache } from '../../../src/archive/object-cache.ts';
import { commitBatch } from '../../../src/consolidation/commit.ts';
import { planRun } from '../../../src/consolidation/plan-run.ts';
import { replayBatch } from '../../../src/consolidation/replay-batch.ts';
import { selectRunBatches, withTenant } from '../../../src/db/index.ts';
import { scaledRecords } from '../../../tools/demo/sample.ts';
import { openUseCasePorts, type UseCasePorts } from '../../helpers/use-cases.ts';

// The archive cache only changes how often objects are inflated: a run over the same archive
// stores the same operations (note changes and quarantines) with it as without it.

const TENANT = 'replay-cache';
const WRITES = 4;
const NOW = '2026-11-05T12:00:00.000Z';

/** The demo sample, repeated, written in several batches: objects over several day partitions. */
async function fillArchive(ports: UseCasePorts): Promise<void> {
  for (let i = 0; i < WRITES; i++) {
    const records = scaledRecords({ tenantId: TENANT, copies: 4, seed: i + 1 }).map((r) => ({
      ...r,
      sessionId: `${r.sessionId}-o${i}`,
      taskId: `${r.taskId}-o${i}`,
    }));
    await writeBatch(ports.archive, { tenantId: TENANT, producer: 'unit', records, now: new Date(NOW) });
  }
}

async function dataObjects(ports: UseCasePorts): Promise<number> {
  let n = 0;
  for await (const info of ports.archive.list(tenantPrefix(TENANT))) if (info.key.endsWith(DATA_SUFFIX)) n++;
  return n;
}

/** Plans, replays and commits every batch, as the workflow does; returns what each batch stored. */
async function runAll(ports: UseCasePorts) {
  const runId = 'run-1';
  const plan = await planRun(ports, {
    runId,
    workflowId: `consolidate/${TENANT}/run-1`,
    tenantId: TENANT,
    window: {},
    // A change budget of 200 plans batches of 50 episodes: three batches here.
    budget: { maxEpisodes: 150, maxLlmTokens: 0, maxNoteChanges: 200, deadlineSeconds: 600 },
    trigger: 'backfill',
    mode: 'active',
    seed: 1,
    now: NOW,
  });
  for (let batchNo = 0; batchNo < plan.batches; batchNo++) {
    await replayBatch(ports, { runId, tenantId: TENANT, batchNo, llmTokensLeft: 0 });
    await commitBatch(ports, { runId, tenantId: TENANT, batchNo, actor: 'consolidate/test', staged: false });
  }
  return withTenant(ports.db, TENANT, (tx) => selectRunBatches(tx, { runId }));
}

describe('replay with the archive cache', () => {
  let plain: UseCasePorts;
  let cached: UseCasePorts;
  const cache = new ArchiveObjectCache();
  beforeAll(async () => {
    [plain, cached] = await Promise.all([openUseCasePorts(), openUseCasePorts()]);
    await Promise.all([fillArchive(plain), fillArchive(cached)]);
  }, 120_000);
  afterAll(async () => Promise.all([plain?.close(), cached?.close()]));

  it('stores the same operations batch by batch, inflating each object once', async () => {
    const without = await runAll(plain);
    const withCache = await runAll({ ...cached, archiveCache: cache });
    expect(without.length).toBeGreaterThan(2);
    expect(without.flatMap((b) => b.ops).length).toBeGreaterThan(0);
    expect(withCache).toEqual(without);
    const objects = await dataObjects(cached);
    expect(cache.stats.misses).toBe(objects);
    expect(cache.stats.hits).toBeGreaterThan(objects);
  }, 120_000);
});
