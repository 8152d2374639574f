import { describe, expect, it } from 'vitest';
import { planRun } from '../../../../src/consolidation/plan-run.ts';
import { replayBatch } from '../../../../src/consolidation/replay-batch.ts';
import { createLlmEngine } from '../../../../src/engine/llm-engine.ts';
import type { CompletionRequest, Llm } from '../../../../src/llm/llm.ts';
import { archiveRecords, freshTenantId, portsForThisFile, preferenceSession } from '../../../helpers/use-cases.ts';

/** A model that answers every call with the same changes. */
const answering = (changes: unknown[]): Llm => ({
  name: 'fixed',
  async complete<T>(request: CompletionRequest<T>) {
    return {
      value: request.schema.parse({ changes }),
      usage: { promptTokens: 100, completionTokens: 20 },
      attempts: 1,
    };
  },
});

const ports = portsForThisFile();

describe('a replayed batch written by a model', () => {
  it('counts the changes the engine refused among the rejections, and plans the rest', async () => {
    const tenantId = freshTenantId('llm-refusals');
    await archiveRecords(ports, preferenceSession(tenantId, 'u-alice'));
    await planRun(ports, {
      runId: 'run-1',
      workflowId: `consolidate/${tenantId}/2026-11-05`,
      tenantId,
      window: {},
      budget: { maxEpisodes: 10, maxLlmTokens: 10_000, maxNoteChanges: 10, deadlineSeconds: 600 },
      trigger: 'manual',
      mode: 'active',
      seed: 1,
      now: '2026-11-05T12:00:00.000Z',
    });
    const engine = createLlmEngine(
      answering([
        {
          op: 'create',
          finding: 1,
          kind: 'preference',
          scope: 'user',
          structure: {
            subject: { type: 'user', id: 'u-alice' },
            attribute: 'prefers',
            value: 'reports as a table',
            contrast: 'prose',
            polarity: 'positive',
          },
          records: [1],
        },
        { op: 'retire', note: 'note-that-was-never-shown', version: 1, finding: 1, reason: 'stale', records: [1] },
      ]),
    );
    const summary = await replayBatch(
      { ...ports, engine },
      { runId: 'run-1', tenantId, batchNo: 0, llmTokensLeft: 10_000 },
    );
    expect(summary).toMatchObject({ proposed: 1, plannedChanges: 1, rejectedByRule: { note_not_shown: 1 } });
    expect(summary.llmTokens).toBe(120);
  });
});
