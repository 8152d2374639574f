import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileArchiveStore } from '../../../src/archive/file-store.ts';
import { manifestKeyFor } from '../../../src/archive/keys.ts';
import { scanTenant } from '../../../src/archive/scan.ts';
import { writeBatch } from '../../../src/archive/writer.ts';
import { generateRecords } from '../../helpers/records.ts';
import { objectKeyFor, putRawObject, tempStore } from './fixtures.ts';

describe('scanTenant', () => {
  let store: FileArchiveStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, cleanup } = await tempStore()));
  afterEach(() => cleanup());

  it('aggregates manifests of one tenant only', async () => {
    const records = generateRecords({ count: 900, seed: 21 });
    await writeBatch(store, { tenantId: 'acme', producer: 'p', records });
    await writeBatch(store, {
      tenantId: 'acme-eu',
      producer: 'p',
      records: generateRecords({ count: 10, tenantId: 'acme-eu' }),
    });
    const scan = await scanTenant(store, 'acme');
    expect(scan.records).toBe(900);
    expect(Object.values(scan.kinds).reduce((a, b) => a + b, 0)).toBe(900);
    expect(scan.tags['failure']).toBe(records.filter((r) => r.tags?.includes('failure')).length);
    expect(scan.problems).toEqual([]);
    expect(scan.verified).toBeUndefined();
  });

  it('with verify, counts quarantined lines and reports corrupt objects and missing manifests', async () => {
    const written = await writeBatch(store, {
      tenantId: 'acme',
      producer: 'p',
      records: generateRecords({ count: 100 }),
    });
    const [a, b] = generateRecords({ count: 2, seed: 99, withRecordedAt: true });
    const badKey = objectKeyFor('acme', '01JQ0000000000000000000001-0123456789ab');
    await putRawObject(store, badKey, `${JSON.stringify(a)}\n{oops\n${JSON.stringify({ ...b, kind: 'x' })}\n`);
    const corruptKey = objectKeyFor('acme', '01JQ0000000000000000000002-0123456789ab');
    await store.putIfAbsent(
      corruptKey,
      gzipSync(Buffer.from('{"a":1}\n'.repeat(500))).subarray(0, 30),
      'application/gzip',
    );
    await store.delete(manifestKeyFor(written.objects[0]?.objectKey ?? ''));

    const scan = await scanTenant(store, 'acme', { verify: true });
    expect(scan.verified).toMatchObject({
      records: 101,
      quarantined: 2,
      byReason: { invalid_json: 1, schema_violation: 1 },
    });
    expect(scan.verified?.lines.map((q) => [q.objectKey, q.line])).toEqual([
      [badKey, 2],
      [badKey, 3],
    ]);
    expect(scan.problems.map((p) => [p.problem, p.objectKey]).sort()).toEqual(
      [
        ['corrupt_object', corruptKey],
        ['missing_manifest', badKey],
        ['missing_manifest', corruptKey],
        ['missing_manifest', written.objects[0]?.objectKey],
      ].sort(),
    );
  });
});
