import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { createActivities } from '../../../activities/index.ts';
import { writeBatch } from '../../../src/archive/index.ts';
import {
  getTenantOperation,
  holdTenantOperation,
  insertErasureRequest,
  releaseTenantOperation,
  selectErasureEpoch,
  withTenant,
  type OperationKind,
} from '../../../src/db/index.ts';
import { freshTenantId, portsForThisFile, preferenceSession } from '../../helpers/use-cases.ts';

const ports = portsForThisFile();

const hold = (tenantId: string, holder: string, kind: OperationKind = 'consolidation', seconds?: number) =>
  holdTenantOperation(ports.db, { tenantId, kind, holder, ...(seconds ? { seconds } : {}) });

/** Runs `fn` as an activity of the workflow `workflowId`, as a worker would. */
function asActivityOf<T>(workflowId: string, fn: () => Promise<T>): Promise<T> {
  const env = new MockActivityEnvironment({ workflowExecution: { workflowId, runId: 'r1' } });
  return env.run(fn);
}

describe('the tenant operation lease', () => {
  it('admits one holder, renews for it, names it to others, and is free again once released', async () => {
    const tenantId = freshTenantId('op');
    expect(await hold(tenantId, 'consolidate/op/a')).toEqual({});
    expect(await hold(tenantId, 'consolidate/op/a')).toEqual({});
    await expect(hold(tenantId, 'rollback-run/x', 'run_rollback')).rejects.toMatchObject({
      name: 'TenantBusyError',
      message: expect.stringContaining('consolidation consolidate/op/a holds its operation lease'),
    });
    expect(await releaseTenantOperation(ports.db, { tenantId, holder: 'rollback-run/x' })).toBe(false);
    expect(await getTenantOperation(ports.db, { tenantId })).toMatchObject({ holder: 'consolidate/op/a' });
    expect(await releaseTenantOperation(ports.db, { tenantId, holder: 'consolidate/op/a' })).toBe(true);
    expect(await getTenantOperation(ports.db, { tenantId })).toBeUndefined();
    expect(await hold(tenantId, 'rollback-run/x', 'run_rollback')).toEqual({});
  });

  it('is taken over once a holder that stopped renewing lets it expire', async () => {
    const tenantId = freshTenantId('op-expiry');
    await hold(tenantId, 'consolidate/op/dead', 'consolidation', 1);
    await expect(hold(tenantId, 'reindex/op', 'reindex')).rejects.toMatchObject({ name: 'TenantBusyError' });
    await new Promise((r) => setTimeout(r, 1200));
    const taken = await hold(tenantId, 'reindex/op', 'reindex');
    expect(taken.tookOver).toMatchObject({ kind: 'consolidation', holder: 'consolidate/op/dead', expired: true });
    // The dead holder, should it come back, no longer has it.
    await expect(hold(tenantId, 'consolidate/op/dead')).rejects.toMatchObject({ name: 'TenantBusyError' });
    expect(await releaseTenantOperation(ports.db, { tenantId, holder: 'consolidate/op/dead' })).toBe(false);
  });
});

describe('activities under the lease', () => {
  it('refuse a run rollback at once, without retrying, naming the consolidation that holds the tenant', async () => {
    const tenantId = freshTenantId('op-act');
    await hold(tenantId, `consolidate/${tenantId}/night`);
    const acts = createActivities(ports);
    const input = { tenantId, runId: `consolidate/${tenantId}/x/r`, reason: 'r', operator: 'o', requestId: 'rb' };
    const failure = await asActivityOf('rollback-run/op', () => acts.rollbackRun(input)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'TenantBusy', nonRetryable: true });
    expect((failure as Error).message).toContain(`consolidation consolidate/${tenantId}/night`);
    // Refused before its work: an unknown run would otherwise fail with RunNotFound.
    await releaseTenantOperation(ports.db, { tenantId, holder: `consolidate/${tenantId}/night` });
    const next = await asActivityOf('rollback-run/op', () => acts.rollbackRun(input)).catch((e: unknown) => e);
    expect(next).toMatchObject({ type: 'RunNotFound' });
  });

  it('let an erasure wait (retryable) for another erasure, but refuse it at once beside a reindex', async () => {
    const tenantId = freshTenantId('op-erase');
    await writeBatch(ports.archive, { tenantId, producer: 'test', records: preferenceSession(tenantId, 'u-kim') });
    const ref = { tenantId, handle: await insertErasureRequest(ports.db, { tenantId, userId: 'u-kim' }) };
    const acts = createActivities(ports);
    await hold(tenantId, `erase/${tenantId}/other`, 'erasure');
    const waiting = await asActivityOf('erase/b', () => acts.prepareErasure(ref)).catch((e: unknown) => e);
    expect(waiting).toMatchObject({ type: 'TenantLocked', nonRetryable: false });
    await releaseTenantOperation(ports.db, { tenantId, holder: `erase/${tenantId}/other` });
    await hold(tenantId, `reindex/${tenantId}`, 'reindex');
    const refused = await asActivityOf('erase/b', () => acts.prepareErasure(ref)).catch((e: unknown) => e);
    expect(refused).toMatchObject({ type: 'TenantBusy', nonRetryable: true });
    expect((refused as Error).message).toContain(`reindex reindex/${tenantId}`);
    // Refused by the operation lease, the erasure took no write fence either: the epoch did not
    // move, so the holder's run (were it a consolidation) is not fenced.
    const epoch = () => withTenant(ports.db, tenantId, (tx) => selectErasureEpoch(tx));
    expect(await epoch()).toBe(0);
    await releaseTenantOperation(ports.db, { tenantId, holder: `reindex/${tenantId}` });
    await asActivityOf('erase/b', () => acts.prepareErasure(ref));
    expect(await epoch()).toBe(1);
    expect(await getTenantOperation(ports.db, { tenantId })).toMatchObject({ kind: 'erasure', holder: 'erase/b' });
    expect(await asActivityOf('erase/b', () => acts.releaseErasureLease(ref))).toEqual({ released: true });
    expect(await getTenantOperation(ports.db, { tenantId })).toBeUndefined();
  });
});
