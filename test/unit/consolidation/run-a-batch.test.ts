import { describe, expect, it } from 'vitest';
import { commitBatch, resolveStaged } from '../../../src/consolidation/commit.ts';
import { embedRunClaims } from '../../../src/consolidation/embed-run.ts';
import { finishRun, planRun, type PlanRunInput } from '../../../src/consolidation/plan-run.ts';
import { replayBatch } from '../../../src/consolidation/replay-batch.ts';
import { getRun, listNotes, selectRunBatch, withTenant } from '../../../src/db/index.ts';
import type { Embedder } from '../../../src/embeddings/embedder.ts';
import { beginReindex, reembedPage } from '../../../src/reindex/rebuild.ts';
import { archiveRecords, freshTenantId, portsForThisFile, preferenceSession } from '../../helpers/use-cases.ts';

// One consolidation run, step by step, on PGlite and a file archive: the use cases the
// consolidation workflow's activities wrap.

const ports = portsForThisFile();

function planInput(tenantId: string, runId: string, mode: PlanRunInput['mode'] = 'active'): PlanRunInput {
  return {
    runId,
    workflowId: `consolidate/${tenantId}/2026-11-05`,
    tenantId,
    window: {},
    budget: { maxEpisodes: 100, maxLlmTokens: 0, maxNoteChanges: 100, deadlineSeconds: 600 },
    trigger: 'manual',
    mode,
    seed: 1,
    now: '2026-11-05T12:00:00.000Z',
  };
}

async function planned(tenantId: string, runId: string, mode: PlanRunInput['mode'] = 'active') {
  await archiveRecords(ports, preferenceSession(tenantId, 'u-alice'));
  return planRun(ports, planInput(tenantId, runId, mode));
}

describe('consolidation use cases', () => {
  it('plan a run: samples the archived episode once; planning again returns the same plan', async () => {
    const tenantId = freshTenantId('plan');
    const first = await planned(tenantId, 'run-1');
    expect(first).toEqual({ candidates: 1, sampled: 1, batches: 1 });
    expect(await planRun(ports, planInput(tenantId, 'run-1'))).toEqual(first);
    expect((await getRun(ports.db, { tenantId, runId: 'run-1' }))?.status).toBe('running');
  });

  it('plan a run: batches follow the change budget, 50 episodes for a small one, up to 200 for a large one', async () => {
    const tenantId = freshTenantId('batches');
    await archiveRecords(ports, Array.from({ length: 120 }, () => preferenceSession(tenantId, 'u-alice')).flat());
    const budget = (maxNoteChanges: number) => ({
      ...planInput(tenantId, 'x').budget,
      maxEpisodes: 500,
      maxNoteChanges,
    });
    const small = await planRun(ports, { ...planInput(tenantId, 'run-small'), budget: budget(200) });
    expect(small).toEqual({ candidates: 120, sampled: 120, batches: 3 });
    const large = await planRun(ports, { ...planInput(tenantId, 'run-large'), budget: budget(5000) });
    expect(large).toEqual({ candidates: 120, sampled: 120, batches: 1 });
    const replayed = await replayBatch(ports, { runId: 'run-large', tenantId, batchNo: 0, llmTokensLeft: 0 });
    expect(replayed.episodes).toBe(120);
  });

  it('replay a batch: stores its operations, and a retry returns the stored summary without proposing again', async () => {
    const tenantId = freshTenantId('replay');
    await planned(tenantId, 'run-1');
    const input = { runId: 'run-1', tenantId, batchNo: 0, llmTokensLeft: 0 };
    const summary = await replayBatch(ports, input);
    expect(summary).toMatchObject({ episodes: 1, replayed: 3, plannedChanges: 1, quarantined: 0 });
    const stored = await withTenant(ports.db, tenantId, (tx) => selectRunBatch(tx, { runId: 'run-1', batchNo: 0 }));
    expect(stored?.ops).toHaveLength(1);
    expect(stored?.ops[0]).toMatchObject({ op: 'create', status: 'active' });

    const engine = ports.engine;
    ports.engine = { name: 'must-not-run', propose: () => Promise.reject(new Error('proposed twice')) };
    try {
      expect(await replayBatch(ports, input)).toEqual(summary);
    } finally {
      ports.engine = engine;
    }
  });

  it('commit: writes the batch once; committing it again changes nothing', async () => {
    const tenantId = freshTenantId('commit');
    await planned(tenantId, 'run-1');
    await replayBatch(ports, { runId: 'run-1', tenantId, batchNo: 0, llmTokensLeft: 0 });
    const key = { runId: 'run-1', tenantId, batchNo: 0, actor: 'consolidate/test', staged: false };
    const first = await commitBatch(ports, key);
    expect(first).toMatchObject({ committed: 1, quarantined: 0 });
    const notes = await listNotes(ports.db, { tenantId, limit: 10 });
    // What it reports for the operator (into workflow history): the created note's ids, never its claim; the same on a retry.
    expect(first.changes).toEqual([
      { noteId: notes.notes[0]?.noteId, action: 'create', fromVersion: null, toVersion: 1, status: 'active' },
    ]);
    expect(await commitBatch(ports, key)).toEqual(first);
    expect(await listNotes(ports.db, { tenantId, limit: 10 })).toEqual(notes);
    expect(notes.notes).toHaveLength(1);
    expect(notes.notes[0]).toMatchObject({ status: 'active', version: 1, scope: { level: 'user', key: 'u-alice' } });
  });

  it('commit of a batch that was never replayed is a permanent RunNotFound', async () => {
    const tenantId = freshTenantId('missing');
    await expect(
      commitBatch(ports, { runId: 'nope', tenantId, batchNo: 0, actor: 'a', staged: false }),
    ).rejects.toMatchObject({ type: 'RunNotFound' });
  });

  it('a staged run writes its notes as staged; approval activates them', async () => {
    const tenantId = freshTenantId('staged');
    await planned(tenantId, 'run-1', 'staged');
    await replayBatch(ports, { runId: 'run-1', tenantId, batchNo: 0, llmTokensLeft: 0 });
    await commitBatch(ports, { runId: 'run-1', tenantId, batchNo: 0, actor: 'consolidate/test', staged: true });
    expect((await listNotes(ports.db, { tenantId, limit: 10 })).notes.map((n) => n.status)).toEqual(['staged']);
    const decision = { runId: 'run-1', tenantId, actor: 'operator', reason: '' };
    expect(await resolveStaged(ports, { ...decision, decision: 'approve' })).toEqual({ changed: 1 });
    expect((await listNotes(ports.db, { tenantId, limit: 10 })).notes.map((n) => n.status)).toEqual(['active']);
  });

  it("embed the run's claims: each new version once, then nothing left", async () => {
    const tenantId = freshTenantId('embed');
    await planned(tenantId, 'run-1');
    await replayBatch(ports, { runId: 'run-1', tenantId, batchNo: 0, llmTokensLeft: 0 });
    await commitBatch(ports, { runId: 'run-1', tenantId, batchNo: 0, actor: 'consolidate/test', staged: false });
    const beats: unknown[] = [];
    const progress = { beat: (d?: unknown) => beats.push(d), during: <T>(w: Promise<T>) => w };
    const key = { runId: 'run-1', tenantId, batchNo: 0 };
    expect(await embedRunClaims(ports, key, progress)).toEqual({ embedded: 1, embedder: ports.embedder.name });
    expect(beats).toEqual([{ embedded: 1 }]);
    expect(await embedRunClaims(ports, key)).toEqual({ embedded: 0, embedder: ports.embedder.name });
  });

  it("a claim is embedded once: a rebuild with the same model reads it from the tenant's cache", async () => {
    const tenantId = freshTenantId('embed-cache');
    await planned(tenantId, 'run-1');
    await replayBatch(ports, { runId: 'run-1', tenantId, batchNo: 0, llmTokensLeft: 0 });
    await commitBatch(ports, { runId: 'run-1', tenantId, batchNo: 0, actor: 'consolidate/test', staged: false });
    await embedRunClaims(ports, { runId: 'run-1', tenantId, batchNo: 0 });
    const asked: string[] = [];
    const counting: Embedder = {
      name: ports.embedder.name,
      dimension: ports.embedder.dimension,
      embed: (texts, options) => {
        asked.push(...texts);
        return ports.embedder.embed(texts, options);
      },
    };
    const rebuild = { db: ports.db, embedder: counting };
    const start = await beginReindex(rebuild, { tenantId, reindexId: 'rebuild-1' });
    const page = await reembedPage(rebuild, {
      tenantId,
      reindexId: 'rebuild-1',
      model: start.model,
      after: null,
      limit: 100,
    });
    expect(page.embedded).toBe(1);
    expect(asked).toEqual([]);
  });

  it('finish a run: records the outcome and lists the versions the run changed', async () => {
    const tenantId = freshTenantId('finish');
    await planned(tenantId, 'run-1');
    await replayBatch(ports, { runId: 'run-1', tenantId, batchNo: 0, llmTokensLeft: 0 });
    await commitBatch(ports, { runId: 'run-1', tenantId, batchNo: 0, actor: 'consolidate/test', staged: false });
    const counts = { sampled: 1, replayed: 3, proposed: 1, rejected: 0, committed: 1, quarantined: 0 };
    const result = await finishRun(ports, {
      runId: 'run-1',
      tenantId,
      status: 'completed',
      counts,
      spent: { episodes: 1, llmTokens: 0, noteChanges: 1, seconds: 1 },
      rejectedByRule: {},
      leftover: { batches: 0 },
    });
    expect(result.changedVersionsTruncated).toBe(false);
    expect(result.changedVersions).toEqual([expect.objectContaining({ fromVersion: null, toVersion: 1 })]);
    const run = await getRun(ports.db, { tenantId, runId: 'run-1' });
    expect(run).toMatchObject({ status: 'completed', counts, finishedAt: '2026-11-05T12:00:00.000Z' });
  });
});
