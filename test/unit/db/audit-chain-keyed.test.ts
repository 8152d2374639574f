import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileArchiveStore } from '../../../src/archive/index.ts';
import { publishAuditHead, verifyTenantAudit } from '../../../src/audit/anchor.ts';
import { auditHash } from '../../../src/db/audit/hash.ts';
import { auditKey } from '../../../src/db/audit/keyed.ts';
import { withAuditKey } from '../../../src/db/db.ts';
import { applyNoteBatch, type Db, getNoteHistory, openDb, verifyAuditChain } from '../../../src/db/index.ts';
import { unscoped } from '../../../src/db/unscoped.ts';
import { FailureType } from '../../../src/contracts/failure-types.ts';
import { createOp, freshNoteId, freshTenant } from '../../helpers/notes.ts';

// The keyed audit chain (migration 0016, src/db/audit/keyed.ts) and its heads in the archive
// (src/audit/anchor.ts), attacked the ways a writer of the database could: re-chaining after an
// edit, cutting the tail, editing a recorded version's claim in place.
const KEY = 'k'.repeat(24) + '-test-audit-key-0123456789';
let legacy: Db;
let keyed: Db;
let dir: string;
let archive: FileArchiveStore;

beforeAll(async () => {
  legacy = await openDb({ kind: 'pglite', dataDir: ':memory:' }, { dimension: 3 });
  keyed = withAuditKey(legacy, auditKey(KEY));
  dir = await mkdtemp(path.join(tmpdir(), 'nocturne-audit-'));
  archive = new FileArchiveStore(dir);
}, 120_000);

afterAll(async () => {
  await legacy?.close();
  await archive?.close();
  await rm(dir, { recursive: true, force: true });
});

/** As the database owner would: any statement, the tenant set for row-level security. */
async function tamper(tenantId: string, sql: string, params: unknown[] = []): Promise<void> {
  await unscoped(legacy).transaction(async (tx) => {
    await tx.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenantId]);
    await tx.query(sql, params);
  });
}

/** A tenant with one legacy entry (before the key) and three keyed ones, its head published. */
async function keyedTenant(): Promise<{ tenantId: string; noteId: string }> {
  const tenantId = freshTenant('audit');
  const noteId = freshNoteId();
  const batch = (db: Db, batchNo: number, ops: Parameters<typeof applyNoteBatch>[1]['ops']) =>
    applyNoteBatch(db, { tenantId, runId: 'run-1', batchNo, actor: 'test', ops });
  await batch(legacy, 0, [createOp()]);
  await batch(keyed, 1, [createOp(noteId), createOp()]);
  await batch(keyed, 2, [
    { op: 'newVersion', action: 'revise', noteId, expectedVersion: 1, changes: { claim: 'Metric units only.' } },
  ]);
  await publishAuditHead({ db: keyed, archive }, tenantId);
  return { tenantId, noteId };
}

describe('keyed audit chain', () => {
  it('verifies keyed entries and reports the entries from before the key as legacy', async () => {
    const { tenantId } = await keyedTenant();
    expect(await verifyAuditChain(keyed, tenantId)).toMatchObject({ ok: true, entries: 4, keyed: 3, legacy: 1 });
    const audit = await verifyTenantAudit({ db: keyed, archive }, tenantId);
    expect(audit).toMatchObject({ chain: { ok: true }, published: 1, latestPublished: 4 });
    // Without the key, keyed entries cannot be checked, and that is a failure, not a pass.
    expect(await verifyAuditChain(legacy, tenantId)).toMatchObject({ ok: false, brokenSeq: 2 });
    expect((await verifyAuditChain(legacy, tenantId)).reason).toMatch(/NOCTURNE_AUDIT_KEY/);
  });

  it('detects an edited reason re-chained with recomputed hashes', async () => {
    const { tenantId } = await keyedTenant();
    // The forger edits entry 3 and recomputes every hash from there, as the legacy writer would.
    await tamper(tenantId, `UPDATE audit_log SET reason = 'approved by the admin' WHERE tenant_id = $1 AND seq = 3`, [
      tenantId,
    ]);
    await rechainAsLegacy(tenantId, 3, { keepKeyId: true });
    expect(await verifyAuditChain(keyed, tenantId)).toMatchObject({ ok: false, brokenSeq: 3 });
  });

  it('detects a whole chain rewritten as legacy entries through the head published in the archive', async () => {
    const { tenantId } = await keyedTenant();
    await tamper(tenantId, `UPDATE audit_log SET reason = 'nothing happened' WHERE tenant_id = $1 AND seq = 2`, [
      tenantId,
    ]);
    await rechainAsLegacy(tenantId, 1, { keepKeyId: false });
    // Internally consistent now (every entry a valid legacy entry)…
    expect(await verifyAuditChain(keyed, tenantId)).toMatchObject({ ok: true, keyed: 0, legacy: 4 });
    // …but not the chain whose head was published.
    const audit = await verifyTenantAudit({ db: keyed, archive }, tenantId);
    expect(audit.chain).toMatchObject({ ok: false, brokenSeq: 4 });
    expect(audit.chain.reason).toMatch(/published as the chain head/);
    const error = await publishAuditHead({ db: keyed, archive }, tenantId).catch((e: unknown) => e);
    expect(error).toMatchObject({ type: FailureType.AuditHeadConflict });
  });

  it('detects a truncated tail through the head published in the archive', async () => {
    const { tenantId } = await keyedTenant();
    await tamper(tenantId, `DELETE FROM audit_log WHERE tenant_id = $1 AND seq = 4`, [tenantId]);
    expect(await verifyAuditChain(keyed, tenantId)).toMatchObject({ ok: true, entries: 3 });
    const audit = await verifyTenantAudit({ db: keyed, archive }, tenantId);
    expect(audit.chain).toMatchObject({ ok: false, entries: 3, brokenSeq: 4 });
    expect(audit.chain.reason).toMatch(/ends at 3 but a head was published at 4/);
  });

  it('detects a claim edited in place in a recorded version', async () => {
    const { tenantId, noteId } = await keyedTenant();
    await tamper(
      tenantId,
      `UPDATE note_versions SET claim = 'Imperial units only.' WHERE note_id = $1 AND version = 2`,
      [noteId],
    );
    const report = await verifyAuditChain(keyed, tenantId);
    expect(report).toMatchObject({ ok: false, brokenSeq: 4 });
    expect(report.reason).toMatch(/no longer has the claim, structure and evidence/);
    expect((await getNoteHistory(keyed, { tenantId, noteId })).versions[1]?.claim).toBe('Imperial units only.');
  });

  it('publishes a head once per seq and accepts the same head again', async () => {
    const { tenantId } = await keyedTenant();
    const again = await publishAuditHead({ db: keyed, archive }, tenantId);
    expect(again).toMatchObject({ seq: 4, keyId: auditKey(KEY).id });
    expect((await verifyTenantAudit({ db: keyed, archive }, tenantId)).published).toBe(1);
  });
});

/** Recomputes legacy sha256 hashes from `fromSeq` on: what a writer without the key can do. */
async function rechainAsLegacy(tenantId: string, fromSeq: number, o: { keepKeyId: boolean }): Promise<void> {
  const history = await unscoped(legacy).transaction(async (tx) => {
    await tx.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenantId]);
    return (await tx.query(`SELECT seq, hash FROM audit_log WHERE tenant_id = $1 ORDER BY seq`, [tenantId])).rows;
  });
  let prev = (history as Array<{ seq: number; hash: string }>).find((r) => Number(r.seq) === fromSeq - 1)?.hash;
  prev ??= '0'.repeat(64);
  for (let seq = fromSeq; seq <= history.length; seq += 1) {
    const entry = (await verifyAuditEntries(tenantId)).find((e) => e.seq === seq);
    if (!entry) throw new Error(`no entry ${seq}`);
    const hash = auditHash({ ...entry, prevHash: prev });
    await tamper(
      tenantId,
      `UPDATE audit_log SET prev_hash = $2, hash = $3${o.keepKeyId ? '' : ', key_id = NULL, version_digest = NULL'} WHERE tenant_id = $1 AND seq = $4`,
      [tenantId, prev, hash, seq],
    );
    prev = hash;
  }
}

async function verifyAuditEntries(tenantId: string) {
  const { selectAuditPage } = await import('../../../src/db/audit/queries.ts');
  return unscoped(legacy).transaction(async (tx) => {
    await tx.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenantId]);
    return selectAuditPage(tx, { tenantId, afterSeq: 0, limit: 1000 });
  });
}
