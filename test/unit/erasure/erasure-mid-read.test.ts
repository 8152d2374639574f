import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createErasureActivities } from '../../../activities/erasure.ts';
import type { ArchiveStore } from '../../../src/archive/index.ts';
import { replayBatch } from '../../../src/consolidation/replay-batch.ts';
import { insertErasureRequest, withTenant } from '../../../src/db/index.ts';
import { indexRecords } from '../../../src/record-index/index.ts';
import {
  archiveRecords,
  freshTenantId,
  planWholeArchive,
  portsForThisFile,
  preferenceSession,
} from '../../helpers/use-cases.ts';

// A reader that read an archive object before an erasure rewrote it, and writes what it derived
// after the erasure took the lease (or ended): a consolidation's replay and the raw-record index.
// What it read may hold the erased records, so it writes nothing; the erasure's scan stays clean.

const ports = portsForThisFile();
const SUBJECT = 'u-sam';

/** The archive, except that its first read of a data object runs `during` between reading the bytes and handing them over. */
function erasingDuringRead(during: () => Promise<void>): ArchiveStore {
  const inner = ports.archive;
  let fired = false;
  return {
    location: inner.location,
    putIfAbsent: (k, b, t) => inner.putIfAbsent(k, b, t),
    getBytes: (k, r) => inner.getBytes(k, r),
    head: (k) => inner.head(k),
    list: (p, o) => inner.list(p, o),
    delete: (k) => inner.delete(k),
    close: () => inner.close(),
    async getStream(key) {
      if (fired || !key.endsWith('.jsonl.gz')) return inner.getStream(key);
      fired = true;
      const bytes = await inner.getBytes(key);
      await during();
      return Readable.from([bytes]);
    },
  };
}

async function tenantWithSubject(label: string) {
  const tenantId = freshTenantId(label);
  await archiveRecords(ports, [...preferenceSession(tenantId, SUBJECT), ...preferenceSession(tenantId, 'u-kim')]);
  const ref = { tenantId, handle: await insertErasureRequest(ports.db, { tenantId, userId: SUBJECT }) };
  const acts = createErasureActivities(ports);
  /** Every step but the last: the lease is still held. */
  const eraseUpToVerification = async () => {
    const found = await acts.prepareErasure(ref);
    await acts.eraseSubjectNotes(ref);
    await acts.eraseArchiveObjects({ ...ref, objectKeys: found.objectKeys });
    await acts.scrubSubjectData(ref);
    expect((await acts.verifyErasure(ref)).clean).toBe(true);
  };
  return { tenantId, ref, acts, eraseUpToVerification };
}

const count = async (tenantId: string, sql: string) =>
  withTenant(ports.db, tenantId, async (tx) => ((await tx.query(sql)).rows[0] as { n: number }).n);

describe('a replay that read the archive before an erasure', () => {
  it('stores no operations once the erasure holds the lease, and the scan stays clean', async () => {
    const { tenantId, ref, acts, eraseUpToVerification } = await tenantWithSubject('mid-replay');
    const runId = `consolidate/${tenantId}/r1`;
    await planWholeArchive(ports, tenantId, runId);
    const replay = replayBatch(
      { ...ports, archive: erasingDuringRead(eraseUpToVerification) },
      { runId, tenantId, batchNo: 0, llmTokensLeft: 0 },
    );
    await expect(replay).rejects.toMatchObject({ name: 'TenantLockedError' });
    expect(await count(tenantId, `SELECT count(*)::int AS n FROM run_batches`)).toBe(0);
    expect((await acts.verifyErasure(ref)).clean).toBe(true);
    await acts.finishErasure(ref);
  });
});

describe('the raw-record index reading an object an erasure rewrites meanwhile', () => {
  it('indexes nothing of what it read, and the next call indexes the object as the erasure left it', async () => {
    const { tenantId, ref, acts, eraseUpToVerification } = await tenantWithSubject('mid-index');
    const during = async () => {
      await eraseUpToVerification();
      await acts.finishErasure(ref);
    };
    const first = await indexRecords({ ...ports, archive: erasingDuringRead(during) }, { tenantId });
    expect(first.records).toBe(0);
    expect(await count(tenantId, `SELECT count(*)::int AS n FROM record_index`)).toBe(0);
    const next = await indexRecords(ports, { tenantId });
    expect(next.records).toBeGreaterThan(0);
    const subjects = `SELECT count(*)::int AS n FROM record_index WHERE user_id = '${SUBJECT}'`;
    expect(await count(tenantId, subjects)).toBe(0);
  });
});
