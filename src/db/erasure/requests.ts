import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Db, Queryable } from '../db.ts';
import { withTenant } from '../tenant.ts';

/**
 * Erasure requests (migration 0017): the user id under a random handle, so Temporal carries only
 * the handle. Rows expire (7 days by default) and are purged by the database's triggers.
 */

/** Stores a request and returns its handle (32 hex characters: 128 random bits). */
export async function insertErasureRequest(db: Db, p: { tenantId: string; userId: string }): Promise<string> {
  const handle = randomBytes(16).toString('hex');
  await withTenant(db, p.tenantId, (tx) =>
    tx.query(`INSERT INTO erasure_requests (tenant_id, handle, user_id) VALUES ($1, $2, $3)`, [
      p.tenantId,
      handle,
      p.userId,
    ]),
  );
  return handle;
}

/** The user id of a live (unexpired) request, or undefined. */
export async function selectErasureRequest(tx: Queryable, p: { handle: string }): Promise<string | undefined> {
  const { rows } = await tx.query(`SELECT user_id FROM erasure_requests WHERE handle = $1 AND expires_at > now()`, [
    p.handle,
  ]);
  return rows[0] === undefined ? undefined : z.object({ user_id: z.string() }).parse(rows[0]).user_id;
}

export async function deleteErasureRequest(tx: Queryable, p: { handle: string }): Promise<number> {
  const { rowCount } = await tx.query(`DELETE FROM erasure_requests WHERE handle = $1`, [p.handle]);
  return rowCount;
}
