import { describe, expect, it } from 'vitest';
import { createErasureActivities } from '../../../activities/erasure.ts';
import { writeBatch } from '../../../src/archive/index.ts';
import {
  applyNoteBatch,
  insertErasureRequest,
  releaseTenantLease,
  takeTenantLease,
  withTenant,
} from '../../../src/db/index.ts';
import { createOp } from '../../helpers/notes.ts';
import { freshTenantId, portsForThisFile, preferenceSession } from '../../helpers/use-cases.ts';

const ports = portsForThisFile();

const take = (tenantId: string, holder: string, seconds?: number) =>
  withTenant(ports.db, tenantId, (tx) =>
    takeTenantLease(tx, { tenantId, holder, purpose: 'erasure', ...(seconds ? { seconds } : {}) }),
  );
const release = (tenantId: string, holder: string) =>
  withTenant(ports.db, tenantId, (tx) => releaseTenantLease(tx, { tenantId, holder }));
const epoch = (tenantId: string) =>
  withTenant(ports.db, tenantId, async (tx) => {
    const { rows } = await tx.query(`SELECT epoch::int AS n FROM tenant_locks`);
    return (rows[0] as { n: number } | undefined)?.n ?? 0;
  });

describe('the tenant lease', () => {
  it('admits one holder at a time, renews without a new epoch, and advances the epoch on take and release', async () => {
    const tenantId = freshTenantId('lease');
    expect(await take(tenantId, 'erasure/a')).toEqual({ renewed: false });
    expect(await epoch(tenantId)).toBe(1);
    expect(await take(tenantId, 'erasure/a')).toEqual({ renewed: true });
    expect(await epoch(tenantId)).toBe(1);
    await expect(take(tenantId, 'erasure/b')).rejects.toMatchObject({ name: 'TenantLockedError' });
    expect(await release(tenantId, 'erasure/b')).toBe(false);
    expect(await release(tenantId, 'erasure/a')).toBe(true);
    expect(await epoch(tenantId)).toBe(2);
    expect(await take(tenantId, 'erasure/b')).toEqual({ renewed: false });
  });

  it('expires when its holder stops renewing it', async () => {
    const tenantId = freshTenantId('lease-expiry');
    await take(tenantId, 'erasure/crashed', 1);
    await expect(take(tenantId, 'erasure/next')).rejects.toMatchObject({ name: 'TenantLockedError' });
    await new Promise((r) => setTimeout(r, 1200));
    expect(await take(tenantId, 'erasure/next')).toEqual({ renewed: false });
  });
});

describe('two erasures of one subject', () => {
  it('hold the lease one after the other, so a commit is refused until the second one ends', async () => {
    const tenantId = freshTenantId('lease-twice');
    await writeBatch(ports.archive, { tenantId, producer: 'test', records: preferenceSession(tenantId, 'u-sam') });
    const acts = createErasureActivities(ports);
    const [a, b] = [
      { tenantId, handle: await insertErasureRequest(ports.db, { tenantId, userId: 'u-sam' }) },
      { tenantId, handle: await insertErasureRequest(ports.db, { tenantId, userId: 'u-sam' }) },
    ];
    const commit = (batchNo: number) =>
      applyNoteBatch(ports.db, { tenantId, runId: 'r-lease', batchNo, actor: 'test', ops: [createOp()] });
    const eraseAll = async (ref: typeof a) => {
      const found = await acts.prepareErasure(ref);
      await acts.eraseSubjectNotes(ref);
      await acts.eraseArchiveObjects({ ...ref, objectKeys: found.objectKeys });
      await acts.scrubSubjectData(ref);
      expect((await acts.verifyErasure(ref)).clean).toBe(true);
    };

    await eraseAll(a);
    // The second request waits for the first (a retryable TenantLocked), rather than joining it.
    await expect(acts.prepareErasure(b)).rejects.toMatchObject({ type: 'TenantLocked', nonRetryable: false });
    await acts.finishErasure(a);
    await eraseAll(b);
    // The first finished; the second still runs and still holds the tenant.
    await expect(commit(0)).rejects.toMatchObject({ name: 'TenantLockedError' });
    await acts.finishErasure(b);
    expect((await commit(0)).changes).toHaveLength(1);
  });
});
