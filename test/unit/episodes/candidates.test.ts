import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readManifest } from '../../../src/archive/manifest-io.ts';
import { writeBatch } from '../../../src/archive/writer.ts';
import type { FileArchiveStore } from '../../../src/archive/file-store.ts';
import { demoRecords } from '../../../tools/demo/sample.ts';
import { listCandidates } from '../../../src/episodes/candidates.ts';
import { loadEpisodes, resolveEvidence } from '../../../src/episodes/episodes.ts';
import { tempStore } from '../archive/fixtures.ts';

describe('episode index and replay planning from manifests', () => {
  let store: FileArchiveStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = await tempStore());
    const acme = demoRecords().filter((r) => r.tenantId === 'acme');
    await writeBatch(store, { tenantId: 'acme', producer: 'demo', records: acme });
  });
  afterEach(async () => cleanup());

  it('indexes every episode of an object with its lines and signals', async () => {
    const candidates = await listCandidates(store, 'acme', {});
    expect(candidates.map((c) => c.key)).toEqual(
      ['acme-s1-t1', 'acme-s2-t1', 'acme-s3-t1', 'acme-s4-t1', 'acme-s5-t1', 'acme-s6-t1'].map((t) => `task:${t}`),
    );
    const s1 = candidates.find((c) => c.key === 'task:acme-s1-t1');
    expect(s1?.signals).toMatchObject({ hasUserCorrection: true, hasFailure: true });
    expect(candidates.find((c) => c.key === 'task:acme-s2-t1')?.signals).toMatchObject({
      hasUserCorrection: false,
      hasFailure: false,
    });
    expect(s1?.recordCount).toBe(6);
    // The episode spans the first day only; days are separate objects.
    expect(s1?.parts).toHaveLength(1);
    const manifest = await readManifest(store, s1?.parts[0]?.objectKey as string);
    expect(manifest.episodes.find((e) => e.key === 'task:acme-s1-t1')?.lines).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('honours the window by day and by observation time', async () => {
    const only = await listCandidates(store, 'acme', { from: '2026-11-04T00:00:00Z' });
    expect(only.map((c) => c.key).sort()).toEqual(['task:acme-s5-t1', 'task:acme-s6-t1']);
  });

  it('loads just the planned lines into episodes whose refs resolve with matching hashes', async () => {
    const [s3] = (await listCandidates(store, 'acme', {})).filter((c) => c.key === 'task:acme-s3-t1');
    const { episodes } = await loadEpisodes(store, 'acme', [{ key: s3!.key, parts: s3!.parts }]);
    expect(episodes).toHaveLength(1);
    expect(episodes[0]?.records.map((r) => r.record.kind)).toEqual([
      'user_message',
      'tool_call',
      'error',
      'tool_call',
      'tool_result',
      'agent_message',
      'task_outcome',
    ]);
    const refs = episodes[0]!.records.map((r) => r.ref);
    const resolved = await resolveEvidence(store, refs, []);
    for (const ref of refs) expect(resolved.get(ref.recordId)?.contentHash).toBe(ref.contentHash);
  });

  it('leaves out, record by record, what an episode holds outside the run window', async () => {
    const [s3] = (await listCandidates(store, 'acme', {})).filter((c) => c.key === 'task:acme-s3-t1');
    const all = (await loadEpisodes(store, 'acme', [{ key: s3!.key, parts: s3!.parts }])).episodes[0]!.records;
    const cutoff = all[2]!.record.observedAt;
    const { episodes } = await loadEpisodes(store, 'acme', [{ key: s3!.key, parts: s3!.parts }], {
      window: { to: cutoff },
    });
    expect(episodes[0]?.records.map((r) => r.record.id)).toEqual(
      all.filter((r) => r.record.observedAt <= cutoff).map((r) => r.record.id),
    );
    expect(episodes[0]!.records.length).toBeLessThan(all.length);
    const later = await loadEpisodes(store, 'acme', [{ key: s3!.key, parts: s3!.parts }], {
      window: { from: '2030-01-01T00:00:00Z' },
    });
    expect(later.episodes).toEqual([]);
  });
});
