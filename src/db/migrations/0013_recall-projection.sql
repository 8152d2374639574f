-- Up Migration

-- The recall projection: one row per note whose current version is active, and nothing else
-- (superseded, retired, staged, quarantined and erased notes, and every older version, stay in
-- note_versions). Recall's current-time reads search it instead of note_versions, so a tenant's
-- vector search no longer walks past other tenants' rows and dead versions, checking each on a
-- heap row. Validity (valid_from / valid_until) is kept as columns and checked at query time,
-- because an expired row stops qualifying without any write; `nocturne index notes` removes
-- expired rows and rebuilds a tenant's rows from the note store.
--
-- Hash partitions by tenant, each with its own HNSW graph: a tenant's query is pruned to one
-- partition and walks only the few tenants that hash there. The column keeps the full-precision
-- vector so the exact fallback reads nothing else.
CREATE TABLE note_recall (
  tenant_id    text        NOT NULL,
  note_id      text        NOT NULL,
  version      integer     NOT NULL,
  scope_level  text        NOT NULL,
  scope_key    text        NOT NULL,
  valid_from   timestamptz NOT NULL,
  valid_until  timestamptz,
  fts          tsvector    NOT NULL,
  PRIMARY KEY (tenant_id, note_id)
) PARTITION BY HASH (tenant_id);

DO $$
DECLARE
  dim text := current_setting('nocturne.embedding_dimension', true);
BEGIN
  IF dim IS NULL OR dim !~ '^[0-9]+$' THEN
    RAISE EXCEPTION 'nocturne.embedding_dimension is not set: run migrations through runMigrations()';
  END IF;
  EXECUTE format('ALTER TABLE note_recall ADD COLUMN embedding vector(%s)', dim::integer);
END
$$;

-- Partitions first, each with its indexes under stable names (a plan names the partition's
-- index: note_recall_p07_hnsw), then the parent's indexes, declared ON ONLY and attached: a
-- partition created after a parent index would get an automatically named copy instead.
-- Every partition is a table of its own in the catalog: row-level security is enabled and
-- forced on each, like on the parent, so reading a partition directly admits no other tenant.
DO $$
DECLARE
  partitions constant integer := 64;
  p text;
  names text[] := ARRAY(SELECT format('note_recall_p%s', lpad(i::text, 2, '0')) FROM generate_series(0, partitions - 1) i);
BEGIN
  FOR i IN 0 .. partitions - 1 LOOP
    p := names[i + 1];
    EXECUTE format('CREATE TABLE %I PARTITION OF note_recall FOR VALUES WITH (MODULUS %s, REMAINDER %s)', p, partitions, i);
    EXECUTE format('CREATE INDEX %I ON %I USING hnsw (embedding vector_cosine_ops)', p || '_hnsw', p);
    EXECUTE format('CREATE INDEX %I ON %I USING gin (fts)', p || '_fts_gin', p);
    EXECUTE format('CREATE INDEX %I ON %I (tenant_id, valid_until) WHERE valid_until IS NOT NULL', p || '_expiry_idx', p);
  END LOOP;
  CREATE INDEX note_recall_hnsw ON ONLY note_recall USING hnsw (embedding vector_cosine_ops);
  CREATE INDEX note_recall_fts_gin ON ONLY note_recall USING gin (fts);
  CREATE INDEX note_recall_expiry_idx ON ONLY note_recall (tenant_id, valid_until) WHERE valid_until IS NOT NULL;
  FOREACH p IN ARRAY names LOOP
    EXECUTE format('ALTER INDEX note_recall_hnsw ATTACH PARTITION %I', p || '_hnsw');
    EXECUTE format('ALTER INDEX note_recall_fts_gin ATTACH PARTITION %I', p || '_fts_gin');
    EXECUTE format('ALTER INDEX note_recall_expiry_idx ATTACH PARTITION %I', p || '_expiry_idx');
  END LOOP;
  FOREACH p IN ARRAY 'note_recall'::text || names LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', p);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', p);
    EXECUTE format(
      'CREATE POLICY tenant_isolation ON %I USING (tenant_id = current_setting(''app.tenant_id'', true)) '
      'WITH CHECK (tenant_id = current_setting(''app.tenant_id'', true))', p);
  END LOOP;
END
$$;

-- The app reads and maintains the projection through the parent only.
GRANT SELECT, INSERT, UPDATE, DELETE ON note_recall TO nocturne_app;

-- One note's row, derived from the note store: its current version if that is active, else none.
-- Runs as the caller (no SECURITY DEFINER), so row-level security scopes it like any tenant write.
CREATE FUNCTION note_recall_refresh(p_tenant text, p_note text) RETURNS void
LANGUAGE sql AS $$
  DELETE FROM note_recall WHERE tenant_id = p_tenant AND note_id = p_note;
  INSERT INTO note_recall (tenant_id, note_id, version, scope_level, scope_key, valid_from, valid_until, fts, embedding)
  SELECT v.tenant_id, v.note_id, v.version, v.scope_level, v.scope_key, v.valid_from, v.valid_until, v.fts, v.embedding
    FROM notes n
    JOIN note_versions v ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
   WHERE n.tenant_id = p_tenant AND n.note_id = p_note AND n.status = 'active' AND v.status = 'active';
$$;

-- Every write of the note store goes through the current pointer (commit, rollback, erasure)
-- or through a version's embedding (embedding a run's claims, a reindex switch), so these two
-- triggers keep the projection in the writer's own transaction: a rolled-back write leaves it
-- unchanged, and no write path can forget it.
CREATE FUNCTION note_recall_on_pointer() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM note_recall WHERE tenant_id = OLD.tenant_id AND note_id = OLD.note_id;
    RETURN NULL;
  END IF;
  PERFORM note_recall_refresh(NEW.tenant_id, NEW.note_id);
  RETURN NULL;
END
$$;

CREATE FUNCTION note_recall_on_embedding() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE note_recall SET embedding = NEW.embedding
   WHERE tenant_id = NEW.tenant_id AND note_id = NEW.note_id AND version = NEW.version;
  RETURN NULL;
END
$$;

CREATE TRIGGER note_recall_pointer AFTER INSERT OR UPDATE OR DELETE ON notes
  FOR EACH ROW EXECUTE FUNCTION note_recall_on_pointer();
CREATE TRIGGER note_recall_embedding AFTER UPDATE OF embedding ON note_versions
  FOR EACH ROW WHEN (OLD.embedding IS DISTINCT FROM NEW.embedding) EXECUTE FUNCTION note_recall_on_embedding();

-- Notes written before this migration. Under FORCE row-level security an owner without
-- BYPASSRLS sees no tenant here; `nocturne index notes --tenant <t> --rebuild` fills them.
INSERT INTO note_recall (tenant_id, note_id, version, scope_level, scope_key, valid_from, valid_until, fts, embedding)
SELECT v.tenant_id, v.note_id, v.version, v.scope_level, v.scope_key, v.valid_from, v.valid_until, v.fts, v.embedding
  FROM notes n
  JOIN note_versions v ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
 WHERE n.status = 'active' AND v.status = 'active';
