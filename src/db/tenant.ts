import { TenantId } from '../contracts/ids.ts';
import { type Db, driverOf, type Queryable } from './db.ts';

/** The role that tenant transactions run as: no BYPASSRLS, minimal grants (migration 0005). */
export const APP_ROLE = 'nocturne_app';

/**
 * Runs `fn` in one transaction as the app role with `app.tenant_id` set, so row-level security
 * scopes every statement to the tenant. Both settings are transaction-local (SET LOCAL and
 * set_config(…, true)): they end with COMMIT/ROLLBACK and never leak to the next pool user.
 */
export async function withTenant<T>(db: Db, tenantId: string, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  const tenant = TenantId.parse(tenantId);
  return driverOf(db).transaction(async (tx) => {
    await tx.query(`SET LOCAL ROLE ${APP_ROLE}`);
    await tx.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenant]);
    return fn(tx);
  });
}
