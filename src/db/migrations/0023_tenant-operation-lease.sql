-- Up Migration

-- One operation lease per tenant, shared by the operations that change many notes of a tenant
-- or all of them: a consolidation (from its plan to its last commit), a run rollback, an
-- erasure and a reindex (policies/tenant-operations.ts holds which pairs exclude each other;
-- docs/SECURITY.md, "One operation per tenant"). The first activity of such a workflow takes
-- it, each later one renews it, the workflow frees it when it ends, fails or is cancelled; an
-- operation that finds another holder's live lease fails at once with TenantBusy naming it.
-- A lease, not a session lock, because an operation spans many activities and workers: one
-- whose workers died or whose workflow was terminated stops renewing, and another operation
-- takes the lease over once it expired. `holder` is the holder's workflow id, the same across
-- its continue-as-new executions.
CREATE TABLE tenant_operations (
  tenant_id    text        PRIMARY KEY,
  kind         text        CHECK (kind IN ('consolidation', 'run_rollback', 'erasure', 'reindex')),
  holder       text,
  acquired_at  timestamptz,
  renewed_at   timestamptz,
  expires_at   timestamptz,
  CHECK ((holder IS NULL) = (kind IS NULL) AND (holder IS NULL) = (expires_at IS NULL))
);

ALTER TABLE tenant_operations ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_operations FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenant_operations
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

GRANT SELECT, INSERT, UPDATE ON tenant_operations TO nocturne_app;

-- Down Migration

DROP TABLE tenant_operations;
