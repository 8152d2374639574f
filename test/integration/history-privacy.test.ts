import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';
import { manifestKeyFor, writeBatch } from '../../src/archive/index.ts';
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

    const { histories, leaks } = await searchHistories('Okonkwo');
    expect(histories).toBeGreaterThanOrEqual(2);
    expect(leaks).toEqual([]);
  }, 180_000);
});

describe('the history of a run that fails', () => {
  it('holds no words of what the failure is about: a damaged manifest naming a user', async () => {
    const tenantId = `histf-${randomBytes(3).toString('hex')}`;
    const { archive, client } = pipeline;
    const email = 'zephyrine.okonkwo@example.com';
    const rs = records(tenantId).map((r) => (r.userId === 'u-alice' ? { ...r, userId: email } : r));
    const written = await writeBatch(archive, { tenantId, producer: 'it', records: rs });
    const texts = await Promise.all(
      written.objects.map(async (o) => ({
        key: manifestKeyFor(o.objectKey),
        text: (await archive.getBytes(manifestKeyFor(o.objectKey))).toString('utf8'),
      })),
    );
    const target = texts.find((t) => t.text.includes(`"${email}"`));
    if (!target) throw new Error('no manifest names the user');
    // Bit rot in storage: the quote before the user's address is lost.
    const damaged = target.text.replace(`"${email}"`, `${email}"`);
    // Teeth: the parser's own message quotes the text around the fault, the user's name with it.
    expect(() => JSON.parse(damaged)).toThrow(/zephyrine/);
    await archive.delete(target.key);
    await archive.putIfAbsent(target.key, Buffer.from(damaged), 'application/json');

    const failure = await client.workflow
      .execute('consolidateTenantWorkflow', {
        taskQueue: config.temporal.taskQueue,
        workflowId: `consolidate/${tenantId}/it-${randomBytes(3).toString('hex')}`,
        args: [{ tenantId, trigger: 'manual', mode: 'active', seed: 1 }],
      })
      .catch((e: unknown) => e);
    const cause = (failure as { cause?: { cause?: { type?: string; message?: string } } }).cause?.cause;
    expect(cause?.type).toBe('ArchiveManifestInvalid');
    // Still a diagnosis: the failure names the manifest.
    expect(cause?.message).toContain(target.key);

    const { leaks } = await searchHistories('zephyrine');
    expect(leaks).toEqual([]);
  }, 180_000);
});

/** Every event of every history on the suite's task queue whose strings contain `needle` (any case). */
async function searchHistories(needle: string): Promise<{ histories: number; leaks: string[] }> {
  const { client } = pipeline;
  const leaks: string[] = [];
  let histories = 0;
  for await (const wf of client.workflow.list({ query: `TaskQueue = '${config.temporal.taskQueue}'` })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    histories += 1;
    for (const e of history.events ?? []) {
      if (historyText(e).some((t) => t.toLowerCase().includes(needle.toLowerCase())))
        leaks.push(`${wf.workflowId} event ${String(e.eventId)} ${String(e.eventType)}`);
    }
  }
  return { histories, leaks };
}
