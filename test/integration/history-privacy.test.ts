import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';
import { writeBatch } from '../../src/archive/index.ts';
import type { RawRecordInput } from '../../src/contracts/raw-record.ts';
import { listNotes } from '../../src/db/index.ts';
import { demoRecords } from '../../tools/demo/sample.ts';
import { pipelineConfig, pipelineForThisFile } from '../helpers/pipeline.ts';

// Workflows pass keys, ids and counts, never the words of a record or a claim: Temporal keeps
// every history for the namespace's retention, where an erasure cannot reach. A consolidation on
// the real stack whose records (and so its notes) hold a person's distinctive words, and every
// history it leaves on its task queue (the run, its vector step), searched for those words.

const { config, schema } = pipelineConfig('hist');
const PERSONAL = 'Zephyrine Okonkwo-Lindqvist';
const PREFERENCE = `Please always show me reports as a table, not prose, signed ${PERSONAL}.`;

const pipeline = pipelineForThisFile(config, schema);

/** The demo's acme records, in which one user states a preference in their own words. */
function records(tenantId: string): RawRecordInput[] {
  return demoRecords()
    .filter((r) => r.tenantId === 'acme')
    .map((r) => ({
      ...r,
      tenantId,
      ...(r.text === 'Please always show me reports as a table, not prose.' ? { text: PREFERENCE } : {}),
    }));
}

/** Every string in a history: payloads decoded, failure messages, details. */
function historyText(value: unknown, out: string[] = []): string[] {
  if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
  else if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) historyText(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) historyText(v, out);
  return out;
}

describe('consolidation histories', () => {
  it('hold no words of a record or a claim, only keys, ids and counts', async () => {
    const tenantId = `hist-${randomBytes(3).toString('hex')}`;
    const { db, archive, client } = pipeline;
    await writeBatch(archive, { tenantId, producer: 'it', records: records(tenantId) });
    const handle = await client.workflow.start('consolidateTenantWorkflow', {
      taskQueue: config.temporal.taskQueue,
      workflowId: `consolidate/${tenantId}/it-${randomBytes(3).toString('hex')}`,
      args: [{ tenantId, trigger: 'manual', mode: 'active', seed: 1, vectorWaitSeconds: 60 }],
    });
    const result = (await handle.result()) as ConsolidateResult;
    expect(result.counts.committed).toBeGreaterThan(0);
    // Teeth: the run did write the words into a note.
    const notes = (await listNotes(db, { tenantId, limit: 10 })).notes;
    expect(notes.some((n) => n.claim.includes(PERSONAL))).toBe(true);

    const leaks: string[] = [];
    let histories = 0;
    for await (const wf of client.workflow.list({ query: `TaskQueue = '${config.temporal.taskQueue}'` })) {
      const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
      histories += 1;
      for (const e of history.events ?? []) {
        if (historyText(e).some((t) => t.includes('Okonkwo')))
          leaks.push(`${wf.workflowId} event ${String(e.eventId)} ${String(e.eventType)}`);
      }
    }
    expect(histories).toBeGreaterThanOrEqual(2);
    expect(leaks).toEqual([]);
  }, 180_000);
});
