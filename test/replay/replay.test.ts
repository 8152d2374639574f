import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { workflowBundle } from '../helpers/temporal.ts';

// Recorded histories of real runs replay against the current workflow code: a change to a
// workflow's command sequence that is not behind patched() fails here, not in production.
// Record new ones with: RECORD_HISTORIES=1 npx vitest run --project workflow test/workflow

const dir = new URL('./histories/', import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const load = (file: string) => JSON.parse(readFileSync(new URL(file, dir), 'utf8'));

describe('recorded workflow histories', () => {
  let current: WorkflowBundleWithSourceMap;
  beforeAll(async () => {
    current = await workflowBundle();
  });

  it('exist for the runs that matter', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'conflict-triggered.json',
        'consolidate-budget-exhausted.json',
        'consolidate-continued-as-new-final.json',
        'consolidate-failed.json',
        'consolidate-index-records.json',
        'consolidate-normal.json',
        'consolidate-published-changes.json',
        'consolidate-record-index-step.json',
        'consolidate-replanned-batch.json',
        'consolidate-staged-approved.json',
        'erase-subject-handle.json',
        'consolidate-vectors-after-commit.json',
        'erase-subject.json',
        'index-note-vectors.json',
        'index-run-records.json',
        'nightly-consolidation.json',
        'reindex.json',
        'rollback-note.json',
        'rollback-run.json',
        // Executions that free the tenant's operation lease (patched 'tenant-operation-lease').
        'consolidate-operation-lease.json',
        'consolidate-failed-operation-lease.json',
        'erase-subject-failed-operation-lease.json',
        'reindex-operation-lease.json',
        'rollback-run-operation-lease.json',
      ]),
    );
  });

  it.each(files)('%s replays against the current workflow code', async (file) => {
    await Worker.runReplayHistory({ workflowBundle: current, replayName: file }, load(file));
  });

  it('a workflow whose command sequence changed fails replay (negative control)', async () => {
    const altered = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./altered/index.ts', import.meta.url)),
      logger: silent,
    });
    const error = await Worker.runReplayHistory({ workflowBundle: altered }, load('consolidate-normal.json')).catch(
      (e: unknown) => e,
    );
    expect((error as Error).name).toBe('DeterminismViolationError');
    expect((error as Error).message).toMatch(/Nondeterminism/);
  });
});

const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
