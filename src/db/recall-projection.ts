import { z } from 'zod';
import type { Db, Queryable } from './db.ts';
import { lockTenantWrites } from './notes/write-queries.ts';
import { intColumn } from './rows.ts';
import { withTenant } from './tenant.ts';

/**
 * The recall projection (migration 0013, table `note_recall`): one row per note whose current
 * version is active. Triggers keep it in step with every note store write; these functions
 * rebuild it, prune rows whose validity has ended, and compare it with the note store.
 */

/** The rows the note store says recall may serve now: current, active versions (validity is judged per query). */
const DERIVED = `SELECT v.tenant_id, v.note_id, v.version, v.scope_level, v.scope_key, v.valid_from, v.valid_until,
                        v.fts, v.embedding
                   FROM notes n
                   JOIN note_versions v
                     ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
                  WHERE n.status = 'active' AND v.status = 'active'`;

const COLUMNS = `tenant_id, note_id, version, scope_level, scope_key, valid_from, valid_until, fts, embedding`;

export interface RecallRebuild {
  /** Rows the projection held before. */
  removed: number;
  /** Rows derived from the note store. */
  inserted: number;
}

/**
 * Replaces the tenant's projection rows with what the note store derives, in one transaction
 * under the tenant write lock, so no commit interleaves. Row-level security confines both
 * statements to the tenant.
 */
export async function rebuildRecallProjection(db: Db, p: { tenantId: string }): Promise<RecallRebuild> {
  return withTenant(db, p.tenantId, async (tx) => {
    await lockTenantWrites(tx, p);
    const removed = (await tx.query(`DELETE FROM note_recall WHERE tenant_id = $1`, [p.tenantId])).rowCount;
    const inserted = (
      await tx.query(
        `INSERT INTO note_recall (${COLUMNS}) SELECT ${COLUMNS} FROM (${DERIVED}) d WHERE tenant_id = $1`,
        [p.tenantId],
      )
    ).rowCount;
    return { removed, inserted };
  });
}

/**
 * Removes rows whose validity ended by `at`: recall already skips them, so this only keeps the
 * index from carrying them. The note store is unchanged (an expired note stays active there).
 */
export async function deleteExpiredRecallRows(tx: Queryable, p: { tenantId: string; at: string }): Promise<number> {
  const { rowCount } = await tx.query(
    `DELETE FROM note_recall WHERE tenant_id = $1 AND valid_until IS NOT NULL AND valid_until <= $2::timestamptz`,
    [p.tenantId, p.at],
  );
  return rowCount;
}

export interface RecallDrift {
  /** Rows the projection holds. */
  rows: number;
  /** Current, active, valid notes of the store the projection lacks, or holds at another version or vector. */
  missing: number;
  /** Projection rows the store does not derive (any longer). */
  extra: number;
}

const DriftRow = z.object({ rows: intColumn, missing: intColumn, extra: intColumn });

/**
 * Compares the tenant's projection with the note store as of `at`; rows expired by then count
 * on neither side. Both zero: recall reads exactly what the store says is current.
 */
export async function selectRecallDrift(tx: Queryable, p: { tenantId: string; at: string }): Promise<RecallDrift> {
  const valid = `(valid_until IS NULL OR valid_until > $2::timestamptz)`;
  const { rows } = await tx.query(
    `WITH d AS (SELECT * FROM (${DERIVED}) x WHERE tenant_id = $1 AND ${valid}),
          r AS (SELECT * FROM note_recall WHERE tenant_id = $1 AND ${valid})
     SELECT (SELECT count(*) FROM note_recall WHERE tenant_id = $1) AS rows,
            (SELECT count(*) FROM d WHERE NOT EXISTS (
               SELECT 1 FROM r WHERE r.note_id = d.note_id AND r.version = d.version
                 AND r.embedding IS NOT DISTINCT FROM d.embedding)) AS missing,
            (SELECT count(*) FROM r WHERE NOT EXISTS (
               SELECT 1 FROM d WHERE d.note_id = r.note_id AND d.version = r.version)) AS extra`,
    [p.tenantId, p.at],
  );
  return DriftRow.parse(rows[0]);
}

export interface RecallCheck extends RecallDrift {
  /** Rows removed because their validity had ended by `at`. */
  expired: number;
}

/** Removes the tenant's expired rows, then compares what is left with the note store. */
export async function checkRecallProjection(db: Db, p: { tenantId: string; at: string }): Promise<RecallCheck> {
  return withTenant(db, p.tenantId, async (tx) => {
    await lockTenantWrites(tx, p);
    const expired = await deleteExpiredRecallRows(tx, p);
    return { expired, ...(await selectRecallDrift(tx, p)) };
  });
}
