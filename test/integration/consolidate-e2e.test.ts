import type { Client } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';
import { writeBatch, type ArchiveStore } from '../../src/archive/index.ts';
import type { NoteVersion } from '../../src/contracts/note.ts';
import { getNoteHistory, listNotes, verifyAuditChain, withTenant, type Db } from '../../src/db/index.ts';
import { demoRecords, scaledRecords } from '../../tools/demo/sample.ts';
import { approveUpdate, progressQuery, rejectUpdate } from '../../workflows/consolidate-messages.ts';
import { resolveEvidence } from '../../src/episodes/episodes.ts';
import { pipelineConfig, startPipeline, type Pipeline } from '../helpers/pipeline.ts';

// The whole pipeline on the real stack: records in SeaweedFS, notes in PostgreSQL + pgvector,
// runs on the Temporal dev server, with the demo sample's known ground truth.

const { config, schema } = pipelineConfig('e2e');

let pipeline: Pipeline;
let db: Db;
let archive: ArchiveStore;
let client: Client;

beforeAll(async () => {
  pipeline = await startPipeline(config, schema);
  ({ db, archive, client } = pipeline);
  for (const tenantId of ['acme', 'globex']) {
    await writeBatch(archive, {
      tenantId,
      producer: 'e2e',
      records: demoRecords().filter((r) => r.tenantId === tenantId),
    });
  }
  for (const tenantId of ['staged-yes', 'staged-no']) {
    await writeBatch(archive, { tenantId, producer: 'e2e', records: scaledRecords({ tenantId, copies: 1 }) });
  }
});

afterAll(async () => pipeline?.close());

const consolidate = (tenantId: string, budget: object = {}) =>
  client.workflow.execute('consolidateTenantWorkflow', {
    taskQueue: config.temporal.taskQueue,
    workflowId: `consolidate/${tenantId}/e2e-${randomBytes(3).toString('hex')}`,
    args: [{ tenantId, trigger: 'manual', seed: 3, budget }],
  }) as Promise<ConsolidateResult>;

const notesOf = async (tenantId: string): Promise<NoteVersion[]> =>
  (await listNotes(db, { tenantId, limit: 100 })).notes;

describe('consolidation end to end', () => {
  let first: ConsolidateResult;
  let notes: NoteVersion[];
  beforeAll(async () => {
    first = await consolidate('acme');
    notes = await notesOf('acme');
  });

  it('keeps within its budget and reports what it did', () => {
    expect(first.status).toBe('completed');
    expect(first.spent.episodes).toBeLessThanOrEqual(first.budget.maxEpisodes);
    expect(first.spent.noteChanges).toBeLessThanOrEqual(first.budget.maxNoteChanges);
    expect(first.counts).toMatchObject({ sampled: 6, replayed: 33, quarantined: 1 });
    expect(first.changedVersions.length).toBe(first.spent.noteChanges);
  });

  it('quarantines the planted prompt injection instead of committing it', () => {
    const injected = notes.filter((n) => /IGNORE ALL PREVIOUS INSTRUCTIONS/.test(n.claim));
    expect(injected.map((n) => n.status)).toEqual(['quarantined']);
    expect(injected[0]?.claim).not.toMatch(/@/);
  });

  it('supersedes the contradicted fact with a pointer to its successor', () => {
    const cents = notes.find((n) => n.claim === 'The billing API returns amounts in cents.');
    const dollars = notes.find((n) => n.claim.includes('already in dollars'));
    expect(dollars?.status).toBe('active');
    expect(cents).toMatchObject({ status: 'superseded', supersededBy: dollars?.noteId });
  });

  it('turns corrections and tool errors into notes whose evidence resolves to the raw records', async () => {
    const active = notes
      .filter((n) => n.status === 'active')
      .map((n) => n.kind)
      .sort();
    expect(active).toEqual(['fact', 'preference', 'tool_behavior']);
    const refs = notes.flatMap((n) => n.evidence);
    const resolved = await resolveEvidence(archive, refs, []);
    for (const ref of refs) expect(resolved.get(ref.recordId)?.contentHash, ref.recordId).toBe(ref.contentHash);
  });

  it('embeds every version it wrote and keeps one audit entry per version change', async () => {
    const { rows } = await withTenant(db, 'acme', (tx) =>
      tx.query(`SELECT count(*)::int AS n FROM ${schema}.note_versions WHERE embedding IS NULL`),
    );
    expect((rows[0] as { n: number }).n).toBe(0);
    for (const n of notes) {
      const h = await getNoteHistory(db, { tenantId: 'acme', noteId: n.noteId });
      expect(h.audit.length).toBe(h.versions.length);
    }
    expect(await verifyAuditChain(db, 'acme')).toMatchObject({ ok: true });
  });

  it('changes nothing when run again over the same records', async () => {
    const again = await consolidate('acme');
    expect(again.counts.committed + again.counts.quarantined).toBe(0);
    const after = await notesOf('acme');
    expect(after.map((n) => [n.noteId, n.version])).toEqual(notes.map((n) => [n.noteId, n.version]));
  });

  it('stops at the note change budget with only whole batches committed', async () => {
    const r = await consolidate('globex', { maxNoteChanges: 1 });
    expect(r.status).toBe('partial');
    expect(r.spent.noteChanges).toBeLessThanOrEqual(1);
    expect(await notesOf('globex')).toEqual([]);
  });

  it.each([
    ['staged-yes', approveUpdate, 'active'],
    ['staged-no', rejectUpdate, 'retired'],
  ] as const)(
    'in staged mode writes new notes as staged and %s settles them on the decision',
    async (tenantId, update, settled) => {
      const handle = await client.workflow.start('consolidateTenantWorkflow', {
        taskQueue: config.temporal.taskQueue,
        workflowId: `consolidate/${tenantId}/staged-${randomBytes(3).toString('hex')}`,
        args: [{ tenantId, trigger: 'manual', mode: 'staged', seed: 1 }],
      });
      // Replay, commit, embedding and the raw-record index all come before the approval wait.
      await expect
        .poll(async () => (await handle.query(progressQuery)).phase, { timeout: 90_000 })
        .toBe('awaiting_approval');
      const waiting = await notesOf(tenantId);
      expect(waiting.filter((n) => n.status !== 'quarantined').every((n) => n.status === 'staged')).toBe(true);
      expect(waiting.length).toBeGreaterThan(2);
      await handle.executeUpdate(update, { args: [{ operator: 'ops@e2e', reason: 'checked' }] });
      const result = (await handle.result()) as ConsolidateResult;
      expect(result.status).toBe(settled === 'active' ? 'completed' : 'rejected');
      const after = await notesOf(tenantId);
      expect(
        after.filter((n) => n.status !== 'quarantined' && n.status !== 'superseded').every((n) => n.status === settled),
      ).toBe(true);
      expect(await verifyAuditChain(db, tenantId)).toMatchObject({ ok: true });
    },
  );
});
