import { describe, expect, it } from 'vitest';
import { createErasureActivities } from '../../../activities/erasure.ts';
import { ArchiveObjectCache } from '../../../src/archive/object-cache.ts';
import {
  insertErasureRequest,
  selectArchiveCacheEpoch,
  selectBatchEpisodes,
  takeTenantLease,
  withTenant,
} from '../../../src/db/index.ts';
import { loadEpisodes, resolveEvidence } from '../../../src/episodes/episodes.ts';
import {
  archiveRecords,
  freshTenantId,
  planWholeArchive,
  portsForThisFile,
  preferenceSession,
} from '../../helpers/use-cases.ts';
import { countingStore } from '../../helpers/counting-store.ts';

// A worker keeps the archive objects its batches inflated. An erasure (in this worker or any
// other) rewrites an object without the subject's lines and deletes the old one: the next batch
// that planned the old object must find it gone, not read the subject from the held copy.

const ports = portsForThisFile();
const SUBJECT = 'u-sam';

const planned = (tenantId: string, runId: string) =>
  withTenant(ports.db, tenantId, (tx) => selectBatchEpisodes(tx, { runId, batchNo: 0 }));

/** What a replay batch reads first: the epoch under which held objects need no HEAD. */
const epochOf = (tenantId: string) => withTenant(ports.db, tenantId, (tx) => selectArchiveCacheEpoch(tx));

async function erase(tenantId: string): Promise<void> {
  const ref = { tenantId, handle: await insertErasureRequest(ports.db, { tenantId, userId: SUBJECT }) };
  const acts = createErasureActivities(ports);
  const found = await acts.prepareErasure(ref);
  await acts.eraseSubjectNotes(ref);
  await acts.eraseArchiveObjects({ ...ref, objectKeys: found.objectKeys });
  await acts.scrubSubjectData(ref);
  expect((await acts.verifyErasure(ref)).clean).toBe(true);
  await acts.finishErasure(ref);
}

describe('the worker-local archive cache and erasure', () => {
  it('never returns a record erased between two batches', async () => {
    const tenantId = freshTenantId('cache-erasure');
    await archiveRecords(ports, [...preferenceSession(tenantId, SUBJECT), ...preferenceSession(tenantId, 'u-kim')]);
    const cache = new ArchiveObjectCache();
    const runId = `consolidate/${tenantId}/r1`;
    await planWholeArchive(ports, tenantId, runId);
    const episodes = await planned(tenantId, runId);
    const usersIn = (loaded: Awaited<ReturnType<typeof loadEpisodes>>) =>
      new Set(loaded.episodes.flatMap((e) => e.records.map((r) => r.record.userId)));

    const store = countingStore(ports.archive);
    const heads = () => store.heads;
    const before = await epochOf(tenantId);
    expect(before).toBeDefined();
    const first = await loadEpisodes(store, tenantId, episodes, { cache, erasureEpoch: before });
    expect(usersIn(first)).toEqual(new Set([SUBJECT, 'u-kim']));
    const headsFirst = heads();
    expect(headsFirst).toBeGreaterThan(0);
    // The next batch, under the same epoch, is served from the held copy without asking the store.
    const again = await loadEpisodes(store, tenantId, episodes, { cache, erasureEpoch: await epochOf(tenantId) });
    expect(usersIn(again)).toEqual(usersIn(first));
    expect(heads()).toBe(headsFirst);
    expect(cache.stats.unchecked).toBeGreaterThan(0);
    const subjectRefs = first.episodes.flatMap((e) =>
      e.records.filter((r) => r.record.userId === SUBJECT).map((r) => r.ref),
    );
    expect(subjectRefs.length).toBeGreaterThan(0);

    await erase(tenantId);

    // A batch planned before the erasure: its object is gone, however fresh the held copy.
    const epochAfter = await epochOf(tenantId);
    expect(epochAfter).not.toBe(before);
    const after = await loadEpisodes(store, tenantId, episodes, { cache, erasureEpoch: epochAfter });
    expect(heads()).toBeGreaterThan(headsFirst);
    expect(after.episodes).toEqual([]);
    expect(after.missingObjects).toEqual([...new Set(subjectRefs.map((r) => r.objectKey))]);
    expect(await resolveEvidence(store, subjectRefs, [], { cache, erasureEpoch: epochAfter })).toEqual(new Map());
    expect(cache.stats.bytes).toBe(0);

    // A run planned after it reads the rewritten object: the other user's records, none of the subject's.
    const next = `consolidate/${tenantId}/r2`;
    await planWholeArchive(ports, tenantId, next);
    const rewritten = await loadEpisodes(ports.archive, tenantId, await planned(tenantId, next), { cache });
    expect(usersIn(rewritten)).toEqual(new Set(['u-kim']));
    expect(rewritten.episodes.flatMap((e) => e.records)).toHaveLength(3);
  });

  it('asks the store on every read while an erasure holds the lease', async () => {
    const tenantId = freshTenantId('cache-lease');
    await archiveRecords(ports, preferenceSession(tenantId, 'u-kim'));
    const cache = new ArchiveObjectCache();
    const runId = `consolidate/${tenantId}/r1`;
    await planWholeArchive(ports, tenantId, runId);
    const episodes = await planned(tenantId, runId);
    const store = countingStore(ports.archive);
    const heads = () => store.heads;
    await loadEpisodes(store, tenantId, episodes, { cache, erasureEpoch: await epochOf(tenantId) });
    const headsFirst = heads();

    // An erasure that took the lease may be rewriting objects: no epoch, so every held copy is checked.
    await withTenant(ports.db, tenantId, (tx) =>
      takeTenantLease(tx, { tenantId, holder: 'erasure/cache-test', purpose: 'erasure', seconds: 60 }),
    );
    const during = await epochOf(tenantId);
    expect(during).toBeUndefined();
    const read = await loadEpisodes(store, tenantId, episodes, { cache, erasureEpoch: during });
    expect(read.episodes).toHaveLength(episodes.length);
    expect(heads()).toBe(headsFirst * 2);
    expect(cache.stats.unchecked).toBe(0);
  });
});
