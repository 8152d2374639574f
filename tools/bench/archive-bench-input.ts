import { gunzipSync } from 'node:zlib';
import type { ArchiveStore } from '../../src/archive/store.ts';
import { writeBatch } from '../../src/archive/writer.ts';
import { generateRecords } from '../fixtures/records.ts';

/** The archive objects the benchmark reads: generated records written as a producer would. */

const TENANT = 'bench';

/** Writes `n` generated records in batches the way a producer would; returns the object keys. */
export async function fill(store: ArchiveStore, n: number, limits: { maxObjectBytes?: number }): Promise<string[]> {
  const keys: string[] = [];
  const batch = 10_000;
  for (let start = 0; start < n; start += batch) {
    // One seed per batch keeps ids unique across batches while staying reproducible.
    const records = generateRecords({
      tenantId: TENANT,
      count: Math.min(batch, n - start),
      seed: 1 + start / batch,
      start: new Date('2026-03-01T00:00:00Z'),
      gapMs: 2_000,
    });
    const result = await writeBatch(store, { tenantId: TENANT, producer: 'bench', records, ...limits });
    keys.push(...result.objects.map((o) => o.objectKey));
  }
  return keys;
}

export async function sizes(store: ArchiveStore, keys: string[]): Promise<{ compressed: number; raw: number }> {
  let compressed = 0;
  let raw = 0;
  for (const key of keys) {
    const body = await store.getBytes(key);
    compressed += body.length;
    raw += gunzipSync(body).length;
  }
  return { compressed, raw };
}
