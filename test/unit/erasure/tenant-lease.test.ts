import { describe, expect, it } from 'vitest';
import { releaseTenantLease, takeTenantLease, withTenant } from '../../../src/db/index.ts';
import { freshTenantId, portsForThisFile } from '../../helpers/use-cases.ts';

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
