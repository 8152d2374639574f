-- Up Migration

-- Tenant isolation is enforced by the database: every tenant table is ENABLEd and FORCEd, and
-- the only policy admits rows of the tenant set with set_config('app.tenant_id', …, true) in
-- the current transaction. With no tenant set, current_setting(…, true) is NULL or '' and
-- nothing matches, so a forgotten withTenant reads nothing instead of everything.
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['notes', 'note_versions', 'audit_log', 'runs', 'applied_batches', 'memory_usage'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format(
      'CREATE POLICY tenant_isolation ON %I USING (tenant_id = current_setting(''app.tenant_id'', true)) '
      'WITH CHECK (tenant_id = current_setting(''app.tenant_id'', true))', t);
  END LOOP;
END
$$;

-- Least privilege: versions, audit entries, batch keys and usage rows are insert-only for the
-- app; only the current pointer and run rows change. (UPDATE on notes also covers FOR UPDATE.)
GRANT SELECT, INSERT, UPDATE ON notes TO nocturne_app;
GRANT SELECT, INSERT ON note_versions TO nocturne_app;
GRANT SELECT, INSERT ON audit_log TO nocturne_app;
GRANT SELECT, INSERT, UPDATE ON runs TO nocturne_app;
GRANT SELECT, INSERT ON applied_batches TO nocturne_app;
GRANT SELECT, INSERT ON memory_usage TO nocturne_app;
