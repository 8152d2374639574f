import { auditKeyOf, type Db } from '../db.ts';
import { chainAuditEntries } from '../audit/hash.ts';
import { insertAuditEntries, selectAuditHead } from '../audit/queries.ts';
import {
  insertVersions,
  lockTenantWrites,
  movePointers,
  selectCurrentVersionsForUpdate,
} from '../notes/write-queries.ts';
import { withTenant } from '../tenant.ts';
import { ERASED_CLAIM, ERASED_SCOPE_KEY } from './queries.ts';

/**
 * Writes an 'erased' tombstone version of each note (claim, evidence and scope key scrubbed)
 * with one 'erase' audit entry each, in one transaction under the tenant write lock. Notes
 * already erased are skipped, which makes a retry write nothing twice. Returns the note ids
 * erased now.
 */
export async function writeErasedVersions(
  db: Db,
  p: { tenantId: string; noteIds: string[]; actor: string; reason: string; at: string },
): Promise<string[]> {
  if (p.noteIds.length === 0) return [];
  return withTenant(db, p.tenantId, async (tx) => {
    await lockTenantWrites(tx, p);
    const current = (await selectCurrentVersionsForUpdate(tx, p)).filter((v) => v.status !== 'erased');
    if (current.length === 0) return [];
    const versions = current.map((v) => ({
      ...v,
      version: v.version + 1,
      status: 'erased' as const,
      scope: { level: v.scope.level, key: ERASED_SCOPE_KEY },
      claim: ERASED_CLAIM,
      evidence: [],
      supersededBy: null,
      createdByRun: p.actor,
      embedding: null,
    }));
    await insertVersions(tx, { tenantId: p.tenantId, at: p.at, versions });
    const moved = await movePointers(tx, {
      tenantId: p.tenantId,
      at: p.at,
      pointers: current.map((v) => ({
        noteId: v.noteId,
        version: v.version + 1,
        status: 'erased' as const,
        startVersion: v.version,
      })),
    });
    if (moved !== current.length)
      throw new Error(`tenant ${p.tenantId}: a note pointer moved under the erasure's lock`);
    const audit = chainAuditEntries(
      await selectAuditHead(tx, p),
      versions.map((v) => ({
        tenantId: p.tenantId,
        at: p.at,
        actor: p.actor,
        action: 'erase' as const,
        noteId: v.noteId,
        fromVersion: v.version - 1,
        toVersion: v.version,
        reason: p.reason,
        version: v,
      })),
      auditKeyOf(db),
    );
    await insertAuditEntries(tx, { tenantId: p.tenantId, entries: audit });
    return current.map((v) => v.noteId);
  });
}
