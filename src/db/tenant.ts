import { TenantId } from '../contracts/ids.ts';
import { type Db, driverOf, type Queryable } from './db.ts';

/** The role that tenant transactions run as: no BYPASSRLS, minimal grants (migration 0005). */
export const APP_ROLE = 'nocturne_app';

export interface TenantOptions {
  /**
   * Further transaction-local settings (name → value, e.g. `hnsw.ef_search`), set in the same
   * statement as the role and the tenant: a recall's transaction spends no round trip of its own
   * on them.
   */
  settings?: Readonly<Record<string, string>>;
}

/**
 * Runs `fn` in one transaction as the app role with `app.tenant_id` set, so row-level security
 * scopes every statement to the tenant. Every setting is transaction-local (set_config(…, true),
 * which for `role` is SET LOCAL ROLE): they end with COMMIT/ROLLBACK and never leak to the next
 * pool user. They are made with the transaction's BEGIN (on a server, in the same message), before `fn` runs any statement.
 */
export async function withTenant<T>(
  db: Db,
  tenantId: string,
  fn: (tx: Queryable) => Promise<T>,
  options: TenantOptions = {},
): Promise<T> {
  const tenant = TenantId.parse(tenantId);
  const settings: Array<[string, string]> = [
    ['role', APP_ROLE],
    ['app.tenant_id', tenant],
    ...Object.entries(options.settings ?? {}),
  ];
  return driverOf(db).transaction(fn, settings);
}
