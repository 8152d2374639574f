import type { Client } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RollbackRunResult } from '../../activities/rollback-run.ts';
import type { EraseSubjectResult } from '../../workflows/erase-subject.ts';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';
import {
  readObject,
  tenantPrefix,
  writeBatch,
  type ArchivedRecord,
  type ArchiveStore,
} from '../../src/archive/index.ts';
import type { EvidenceRef } from '../../src/contracts/note.ts';
import type { RawRecordInput } from '../../src/contracts/raw-record.ts';
import {
  applyNoteBatch,
  getNote,
  getNoteHistory,
  getRun,
  withTenant,
  insertMemoryUsage,
  listNotes,
  verifyAuditChain,
  getAuditHead,
  type Db,
} from '../../src/db/index.ts';
import { verifyTenantAudit } from '../../src/audit/anchor.ts';
import { demoRecords } from '../../tools/demo/sample.ts';
import { resolveEvidence } from '../../src/episodes/episodes.ts';
import { pipelineConfig, startPipeline, type Pipeline } from '../helpers/pipeline.ts';
import { rewriteWithoutSubject } from '../../src/erasure/archive.ts';
import { awaitErasureAndForget, startErasure } from '../../src/erasure/start.ts';
import {
  archivedRecords as archivedRecordsOf,
  objectsMentioning as objectsMentioningIn,
  rowsMentioning as rowsMentioningIn,
} from '../helpers/erasure-search.ts';

// Rollback of a whole run and erasure of a data subject, on the real stack: SeaweedFS,
// PostgreSQL + pgvector (a fresh schema), the Temporal dev server, the real worker.

const { config, schema } = pipelineConfig('rb');

let pipeline: Pipeline;
let db: Db;
let archive: ArchiveStore;
let client: Client;

beforeAll(async () => {
  pipeline = await startPipeline(config, schema);
  ({ db, archive, client } = pipeline);
});

afterAll(async () => pipeline?.close());

const exec = <R>(workflow: string, workflowId: string, input: unknown) =>
  client.workflow.execute(workflow, { taskQueue: config.temporal.taskQueue, workflowId, args: [input] }) as Promise<R>;
const tag = () => randomBytes(3).toString('hex');
const consolidate = (tenantId: string) =>
  exec<ConsolidateResult>('consolidateTenantWorkflow', `consolidate/${tenantId}/it-${tag()}`, {
    tenantId,
    trigger: 'manual',
    seed: 3,
  });
const rollbackRun = (runId: string) =>
  exec<RollbackRunResult>('rollbackRunWorkflow', `rollback-run/it-${tag()}`, {
    runId,
    reason: 'bad run',
    operator: 'it-operator',
  });
/** As `nocturne erase` does: the user id goes to the note store, the workflow gets a handle. */
const erase = async (tenantId: string, userId: string): Promise<EraseSubjectResult> => {
  const run = await startErasure(client, db, { tenantId, userId, taskQueue: config.temporal.taskQueue });
  return (await awaitErasureAndForget(client, run)).result as EraseSubjectResult;
};

/** What recall can see: the active notes, by id, status and claim. */
async function activeSet(tenantId: string): Promise<string[]> {
  const { notes } = await listNotes(db, { tenantId, status: 'active', limit: 1000 });
  return notes.map((n) => `${n.noteId}|${n.status}|${n.claim}`).sort();
}

const asTenant = (tenantId: string, records: RawRecordInput[]) => records.map((r) => ({ ...r, tenantId }));
const acme = () => demoRecords().filter((r) => r.tenantId === 'acme');
const DAY2 = '2026-11-04';

describe('rollbackRunWorkflow', () => {
  const tenantId = 'rb';
  let before: string[];
  let second: ConsolidateResult;

  beforeAll(async () => {
    // Run 1 learns from the first two days; run 2 sees day three, which contradicts a fact.
    await writeBatch(archive, {
      tenantId,
      producer: 'it',
      records: asTenant(
        tenantId,
        acme().filter((r) => r.observedAt < DAY2),
      ),
    });
    await consolidate(tenantId);
    before = await activeSet(tenantId);
    await writeBatch(archive, {
      tenantId,
      producer: 'it',
      records: asTenant(
        tenantId,
        acme().filter((r) => r.observedAt >= DAY2),
      ),
    });
    second = await consolidate(tenantId);
  });

  it('restores exactly the active set from before the rolled-back run', async () => {
    const changed = await activeSet(tenantId);
    expect(changed).not.toEqual(before); // the run being rolled back did change what recall sees
    expect(second.changedVersions.length).toBeGreaterThan(0);
    const r = await rollbackRun(second.runId);
    expect(r.noop).toBe(false);
    expect(await activeSet(tenantId)).toEqual(before);
    expect((await getRun(db, { tenantId, runId: second.runId }))?.status).toBe('rolled_back');
  });

  it('writes new versions (history kept) with one audit entry each, and the chain verifies up to the head it published', async () => {
    for (const c of second.changedVersions) {
      const h = await getNoteHistory(db, { tenantId, noteId: c.noteId });
      expect(h.versions.length).toBeGreaterThan(c.toVersion - 1);
      expect(h.audit.length).toBe(h.versions.length);
    }
    expect(await verifyAuditChain(db, tenantId)).toMatchObject({ ok: true });
    // The rollback's own entries are anchored in the archive, not only the consolidations' ones.
    const verified = await verifyTenantAudit({ db, archive }, tenantId);
    expect(verified.chain).toMatchObject({ ok: true });
    expect(verified.latestPublished).toBe((await getAuditHead(db, tenantId))?.seq);
  });

  it('a second identical rollback changes nothing', async () => {
    const { rows: a } = await withTenant(db, tenantId, (tx) =>
      tx.query(`SELECT count(*)::int AS n FROM ${schema}.audit_log WHERE tenant_id = $1`, [tenantId]),
    );
    const r = await rollbackRun(second.runId);
    expect(r).toMatchObject({ noop: true, changes: [] });
    const { rows: b } = await withTenant(db, tenantId, (tx) =>
      tx.query(`SELECT count(*)::int AS n FROM ${schema}.audit_log WHERE tenant_id = $1`, [tenantId]),
    );
    expect(b).toEqual(a);
    expect(await activeSet(tenantId)).toEqual(before);
  });

  it('fails non-retryably on a run id the tenant does not have', async () => {
    const error = await rollbackRun(`consolidate/${tenantId}/nope/x`).catch((e: unknown) => e);
    // WorkflowFailedError ← ActivityFailure ← ApplicationFailure
    expect((error as { cause?: { cause?: { type?: string; nonRetryable?: boolean } } }).cause?.cause).toMatchObject({
      type: 'RunNotFound',
      nonRetryable: true,
    });
  });
});

describe('eraseSubjectWorkflow', () => {
  const tenantId = 'er';
  const subject = 'u-alice';
  const records = asTenant(tenantId, acme());
  const words = records
    .filter((r) => r.userId === subject && r.source === 'user' && (r.text ?? '').length >= 12)
    .map((r) => r.text as string);
  let notesBefore: Awaited<ReturnType<typeof listNotes>>['notes'];
  let result: EraseSubjectResult;
  const SHARED = '01KB00000000000000000SHARE';
  let sharedBefore: EvidenceRef[];

  const archivedRecords = (t = tenantId) => archivedRecordsOf(archive, t);

  const rowsMentioning = (needle: string) => rowsMentioningIn(db, schema, tenantId, needle);
  const objectsMentioning = (needle: string) => objectsMentioningIn(archive, tenantId, needle);

  async function archivedIds(t = tenantId): Promise<Map<string, string | undefined>> {
    const ids = new Map<string, string | undefined>();
    for await (const o of archive.list(tenantPrefix(t))) {
      if (!o.key.endsWith('.jsonl.gz')) continue;
      for await (const r of readObject(archive, o.key)) ids.set(r.record.id, r.record.userId);
    }
    return ids;
  }

  beforeAll(async () => {
    await writeBatch(archive, { tenantId, producer: 'it', records });
    await consolidate(tenantId);
    // A note built on both users' records: erasure must re-validate it on Bob's record alone and,
    // since that record shares an object with Alice's, point its evidence at the rewritten object.
    const cited = await archivedRecords();
    const alices = cited.find((r) => r.record.userId === subject && r.record.kind === 'user_correction');
    const bobs = cited.find(
      (r) =>
        r.record.userId === 'u-bob' && r.record.text === 'Converting from cents: you invoiced $2,450.00 in September.',
    );
    const ref = (r: ArchivedRecord | undefined) => ({
      recordId: r?.record.id ?? '',
      objectKey: r?.objectKey ?? '',
      line: r?.line ?? 0,
      contentHash: r?.contentHash ?? '',
    });
    await applyNoteBatch(db, {
      tenantId,
      runId: 'it-shared-note',
      batchNo: 0,
      actor: 'it',
      ops: [
        {
          op: 'create',
          noteId: SHARED,
          reason: 'shared evidence',
          content: {
            scope: { level: 'task_type', key: 'invoice_report' },
            kind: 'fact',
            claim: 'Converting from cents: invoiced $2,450.00 in September.',
            evidence: [ref(alices), ref(bobs)],
            sourceKind: 'inference',
            confidence: 0.5,
            importance: 0.5,
            sourceCount: 2,
            validFrom: '2026-11-03T00:00:00Z',
            lastConfirmedAt: '2026-11-03T00:00:00Z',
          },
        },
      ],
    });
    sharedBefore = (await getNoteHistory(db, { tenantId, noteId: SHARED })).versions.at(-1)?.evidence ?? [];
    notesBefore = (await listNotes(db, { tenantId, limit: 1000 })).notes;
    // Recall logged every note; and an operator pasted the subject's words into an audit reason.
    await insertMemoryUsage(db, {
      tenantId,
      rows: notesBefore.map((n, i) => ({
        taskId: 'task-1',
        noteId: n.noteId,
        version: n.version,
        rank: i + 1,
        score: 0.5,
        at: '2026-11-05T00:00:00Z',
      })),
    });
    const other = notesBefore.find(
      (n) =>
        n.status === 'active' && n.evidence.every((e) => records.find((r) => r.id === e.recordId)?.userId !== subject),
    );
    expect(other).toBeDefined();
    await applyNoteBatch(db, {
      tenantId,
      runId: 'it-operator-note',
      batchNo: 0,
      actor: 'it-operator',
      ops: [
        {
          op: 'newVersion',
          action: 'reinforce',
          noteId: other?.noteId ?? '',
          expectedVersion: other?.version ?? 1,
          reason: `compare with: ${words[0]}`,
        },
      ],
    });
    // Teeth: before erasure, the raw searches do find the subject.
    expect(await rowsMentioning(subject)).not.toEqual([]);
    expect(await objectsMentioning(subject)).not.toEqual([]);
    expect(await rowsMentioning(words[0] ?? '')).not.toEqual([]);
    result = await erase(tenantId, subject);
    if (process.env['SHOW_ERASURE']) process.stderr.write(`${JSON.stringify(result, null, 2)}\n`);
  });

  it('reports what it removed and re-validated, and its scan is clean', () => {
    expect(result.scan).toMatchObject({ clean: true, archive: [], database: [] });
    expect(result.recordsFound).toBe(records.filter((r) => r.userId === subject).length);
    expect(result.archive.recordsRemoved).toBe(result.recordsFound);
    expect(result.notes.erased.length).toBeGreaterThan(0);
    expect(result.scrubbed.auditEntriesRedacted).toBe(1);
    expect(JSON.stringify(result)).not.toContain(subject);
  });

  it('leaves no trace of the user id or their words in any table or object', async () => {
    for (const needle of [subject, ...words]) {
      expect(await rowsMentioning(needle), needle).toEqual([]);
      expect(await objectsMentioning(needle), needle).toEqual([]);
    }
    const { rows } = await withTenant(db, tenantId, (tx) =>
      tx.query(
        `SELECT count(*)::int AS n FROM ${schema}.note_versions v JOIN ${schema}.notes n USING (tenant_id, note_id)
          WHERE v.tenant_id = $1 AND n.status = 'erased' AND (v.embedding IS NOT NULL OR v.claim <> '[erased]' OR v.evidence <> '[]'::jsonb)`,
        [tenantId],
      ),
    );
    expect(rows).toEqual([{ n: 0 }]);
    const { rows: usage } = await withTenant(db, tenantId, (tx) =>
      tx.query(
        `SELECT count(*)::int AS n FROM ${schema}.memory_usage WHERE tenant_id = $1 AND note_id = ANY($2::text[])`,
        [tenantId, result.notes.erased],
      ),
    );
    expect(usage).toEqual([{ n: 0 }]);
  });

  it("keeps every other user's records, byte for byte where notes cite them", async () => {
    const ids = await archivedIds();
    const others = records
      .filter((r) => r.userId !== subject)
      .map((r) => r.id)
      .sort();
    expect([...ids.keys()].sort()).toEqual(others);
    const kept = (await listNotes(db, { tenantId, limit: 1000 })).notes.filter((n) => n.status !== 'erased');
    const refs = kept.flatMap((n) => n.evidence);
    const resolved = await resolveEvidence(archive, refs, []);
    for (const ref of refs) expect(resolved.get(ref.recordId)?.contentHash, ref.recordId).toBe(ref.contentHash);
  });

  it("re-validates a note on the other user's evidence and re-points it at the rewritten object", async () => {
    expect(result.notes.revalidated).toEqual([SHARED]);
    expect(result.archive.notesRepointed).toBeGreaterThanOrEqual(1);
    const now = (await getNoteHistory(db, { tenantId, noteId: SHARED })).versions.at(-1);
    const bobs = sharedBefore[1] as EvidenceRef;
    expect(now).toMatchObject({
      status: 'active',
      claim: 'Converting from cents: invoiced $2,450.00 in September.',
      sourceCount: 1,
    });
    expect(now?.evidence).toHaveLength(1);
    expect(now?.evidence[0]).toMatchObject({ recordId: bobs.recordId, contentHash: bobs.contentHash });
    expect(now?.evidence[0]?.objectKey).not.toBe(bobs.objectKey);
    expect(await archive.head(bobs.objectKey)).toBeUndefined();
  });

  it("leaves other users' notes as recall sees them, and their usage rows", async () => {
    const after = new Map((await listNotes(db, { tenantId, limit: 1000 })).notes.map((n) => [n.noteId, n]));
    const untouched = notesBefore.filter((n) => !result.notes.erased.includes(n.noteId));
    expect(untouched.length).toBeGreaterThan(0);
    for (const n of untouched)
      expect([after.get(n.noteId)?.status, after.get(n.noteId)?.claim]).toEqual([n.status, n.claim]);
    for (const id of result.notes.erased) expect(after.get(id)?.status).toBe('erased');
    const { rows } = await withTenant(db, tenantId, (tx) =>
      tx.query(`SELECT count(*)::int AS n FROM ${schema}.memory_usage WHERE tenant_id = $1`, [tenantId]),
    );
    expect(rows).toEqual([{ n: untouched.length }]);
  });

  it('keeps the audit chain verifiable, with one erase entry per erased note, up to the head it published', async () => {
    expect(await verifyAuditChain(db, tenantId)).toMatchObject({ ok: true });
    const verified = await verifyTenantAudit({ db, archive }, tenantId);
    expect(verified.chain).toMatchObject({ ok: true });
    expect(verified.latestPublished).toBe((await getAuditHead(db, tenantId))?.seq);
    const { rows } = await withTenant(db, tenantId, (tx) =>
      tx.query(`SELECT count(*)::int AS n FROM ${schema}.audit_log WHERE tenant_id = $1 AND action = 'erase'`, [
        tenantId,
      ]),
    );
    expect(rows).toEqual([{ n: result.notes.erased.length }]);
  });

  it('is idempotent: erasing again finds nothing to remove and changes nothing', async () => {
    const again = await erase(tenantId, subject);
    expect(again).toMatchObject({
      recordsFound: 0,
      archive: { recordsRemoved: 0, rewritten: 0, deleted: 0 },
      scan: { clean: true },
    });
    expect(again.scrubbed).toMatchObject({ versionsScrubbed: 0, auditEntriesRedacted: 0 });
    expect(await verifyAuditChain(db, tenantId)).toMatchObject({ ok: true });
  });

  it('keeps the app role least-privileged: no UPDATE of versions or audit, and the definer functions check what they are told', async () => {
    const live = (await listNotes(db, { tenantId, status: 'active', limit: 1 })).notes[0];
    expect(live).toBeDefined();
    const denied = (sql: string) =>
      withTenant(db, tenantId, (tx) => tx.query(sql)).catch((e: unknown) => (e as Error).message);
    expect(await denied(`UPDATE note_versions SET claim = 'x'`)).toMatch(/permission denied/);
    expect(await denied(`UPDATE audit_log SET reason = 'x'`)).toMatch(/permission denied/);
    expect(await denied(`DELETE FROM memory_usage`)).toMatch(/permission denied/);
    // The app role may set a note's status; that alone is no erase record, so nothing is scrubbed.
    const scrubbed = await withTenant(db, tenantId, async (tx) => {
      await tx.query(`UPDATE notes SET status = 'erased' WHERE note_id = $1`, [live?.noteId]);
      return tx.query(`SELECT * FROM nocturne_scrub_erased_notes($1::text[])`, [[live?.noteId]]);
    }).catch((e: unknown) => (e as Error).message);
    expect(scrubbed).toMatch(/no erase record at its current version/);
    // The caller cannot hand over hashes any more, nor redact strings no erasure is working on.
    const oldSignature = await denied(
      `SELECT nocturne_redact_audit('x', '[{"seq": 1, "reason": "r", "prevHash": "${'0'.repeat(64)}", "hash": "${'1'.repeat(64)}"}]'::jsonb)`,
    );
    expect(oldSignature).toMatch(/does not exist/);
    expect(await denied(`SELECT * FROM nocturne_redact_audit('x', ARRAY['a'])`)).toMatch(/not part of an erasure/);
    expect(await denied(`SELECT nocturne_scrub_run_work(ARRAY['"'])`)).toMatch(/not part of an erasure/);
    expect((await getNote(db, { tenantId, noteId: live?.noteId ?? '' }))?.claim).toBe(live?.claim);
    expect(await verifyAuditChain(db, tenantId)).toMatchObject({ ok: true });
  });

  it('finishes cleanly after a crash that left a rewritten object beside the old one, with no duplicated record', async () => {
    const t = 'er3';
    await writeBatch(archive, { tenantId: t, producer: 'it', records: asTenant(t, acme()) });
    // The crash: an attempt wrote the new object and manifest, then died before deleting the old.
    for await (const o of archive.list(tenantPrefix(t))) {
      if (o.key.endsWith('.jsonl.gz')) await rewriteWithoutSubject(archive, o.key, subject, '2026-11-30T00:00:00.000Z');
    }
    const r = await erase(t, subject);
    expect(r.scan.clean).toBe(true);
    const all = await archivedRecords(t);
    const others = asTenant(t, acme())
      .filter((x) => x.userId !== subject)
      .map((x) => x.id)
      .sort();
    expect(all.map((x) => x.record.id).sort()).toEqual(others);
  });

  it('fails with ErasureIncomplete when another record still names the subject, keeping that record', async () => {
    const t = 'er2';
    const base = acme()[0] as RawRecordInput;
    const mention = {
      ...base,
      id: '01KB0000000000000000000001',
      tenantId: t,
      userId: 'u-bob',
      text: `Forwarded on behalf of ${subject}.`,
    };
    await writeBatch(archive, { tenantId: t, producer: 'it', records: [...asTenant(t, acme()), mention] });
    const error = await erase(t, subject).catch((e: unknown) => e);
    const cause = (error as { cause?: { type?: string; message?: string; nonRetryable?: boolean } }).cause;
    expect(cause).toMatchObject({ type: 'ErasureIncomplete', nonRetryable: true });
    expect(cause?.message).toMatch(/user_id/);
    const left = await archivedIds(t);
    expect(left.get(mention.id)).toBe('u-bob');
    expect([...left.values()]).not.toContain(subject);
  });
});
