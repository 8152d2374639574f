import { describe, expect, it } from 'vitest';
import { insertErasureRequest, withTenant } from '../../../src/db/index.ts';
import { resolveSubject } from '../../../src/erasure/work.ts';
import { consolidate, freshTenantId, portsForThisFile } from '../../helpers/use-cases.ts';

const ports = portsForThisFile();
const HANDLE = 'abcdefabcdefabcdefabcdefabcdef12';

/** The working set of an erasure abandoned 8 days ago, past its retention. */
const abandoned = (tenantId: string) =>
  withTenant(ports.db, tenantId, (tx) =>
    tx.query(
      `INSERT INTO erasure_work (tenant_id, subject, kind, value, expires_at)
       VALUES ($1, 's', 'needle', 'the words of an abandoned erasure', now() - interval '1 day')`,
      [tenantId],
    ),
  );

const count = (tenantId: string, table: string) =>
  withTenant(ports.db, tenantId, async (tx) => {
    const { rows } = await tx.query(`SELECT count(*)::int AS n FROM ${table}`);
    return (rows[0] as { n: number }).n;
  });

describe('the erasure working set has a bounded lifetime', () => {
  it('expired work no longer counts, and the next erasure request deletes it', async () => {
    const tenantId = freshTenantId('erase-retention');
    await abandoned(tenantId);
    expect(await count(tenantId, 'erasure_work')).toBe(1);
    // The definer functions refuse strings of an expired working set.
    const refused = await withTenant(ports.db, tenantId, (tx) =>
      tx.query(`SELECT nocturne_scrub_run_work(ARRAY['the words of an abandoned erasure'])`),
    ).catch((e: unknown) => (e as Error).message);
    expect(refused).toMatch(/not part of an erasure in progress/);
    const handle = await insertErasureRequest(ports.db, { tenantId, userId: 'u-bob' });
    expect(await count(tenantId, 'erasure_work')).toBe(0);
    expect(await resolveSubject(ports.db, { tenantId, handle })).toEqual({ tenantId, userId: 'u-bob' });
    await expect(resolveSubject(ports.db, { tenantId, handle: HANDLE })).rejects.toMatchObject({
      type: 'ErasureRequestNotFound',
    });
  });

  it('a consolidation run of the tenant deletes expired rows too', async () => {
    const tenantId = freshTenantId('erase-retention-run');
    await abandoned(tenantId);
    await consolidate(ports, tenantId, 'run-1');
    expect(await count(tenantId, 'erasure_work')).toBe(0);
  });
});
