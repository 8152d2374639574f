-- Up Migration

-- The raw-record index: a projection of the archive (design, "representation": indexes for
-- notes and raw records), so recall can return what was said when no note captured it. Every
-- row is rebuildable from the archive object and line it names; `nocturne index records
-- --rebuild` drops a tenant's rows and reads the archive again. Only records with text worth
-- recalling are indexed (policies/record-recall.ts); their text is redacted before it is stored.
CREATE TABLE record_index (
  tenant_id        text        NOT NULL,
  record_id        text        NOT NULL,
  object_key       text        NOT NULL,
  line             integer     NOT NULL CHECK (line >= 1),
  content_hash     text        NOT NULL,
  session_id       text        NOT NULL,
  user_id          text,
  agent_id         text        NOT NULL,
  task_type        text,
  kind             text        NOT NULL,
  observed_at      timestamptz NOT NULL,
  -- Who speaks (the user, the role, else the kind): matched with the text, so a question that
  -- names a person finds what that person said.
  speaker          text        NOT NULL,
  text             text        NOT NULL,
  -- sha256 of the embedded string (speaker and text): the embedding cache's key.
  text_hash        text        NOT NULL,
  -- 'simple', like note_versions.fts: records come in many languages and recall builds one tsquery.
  fts              tsvector    GENERATED ALWAYS AS (to_tsvector('simple', speaker || ' ' || text)) STORED,
  embedding_model  text,
  indexed_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, record_id)
);

-- Vectors cached by the hash of the embedded string and the model, so reindexing an object (a
-- rebuild, an object rewritten by erasure) never embeds a text twice.
CREATE TABLE embedding_cache (
  tenant_id     text        NOT NULL,
  model         text        NOT NULL,
  content_hash  text        NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, model, content_hash)
);

-- The vector columns' dimension comes from configuration, like note_versions.embedding (0002).
DO $$
DECLARE
  dim text := current_setting('nocturne.embedding_dimension', true);
BEGIN
  IF dim IS NULL OR dim !~ '^[0-9]+$' THEN
    RAISE EXCEPTION 'nocturne.embedding_dimension is not set: run migrations through runMigrations()';
  END IF;
  EXECUTE format('ALTER TABLE record_index ADD COLUMN embedding vector(%s)', dim::integer);
  EXECUTE format('ALTER TABLE embedding_cache ADD COLUMN embedding vector(%s) NOT NULL', dim::integer);
END
$$;

CREATE INDEX record_index_embedding_hnsw ON record_index USING hnsw (embedding vector_cosine_ops);
CREATE INDEX record_index_fts_gin ON record_index USING gin (fts);
-- Erasure and reindexing find an object's rows.
CREATE INDEX record_index_object_idx ON record_index (tenant_id, object_key);

-- Archive objects read to their end: indexing skips them. An object that reaches past the
-- run's window is indexed in part and not listed, so a later, wider window reads it again.
CREATE TABLE record_index_objects (
  tenant_id   text        NOT NULL,
  object_key  text        NOT NULL,
  records     integer     NOT NULL CHECK (records >= 0),
  indexed_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, object_key)
);

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['record_index', 'embedding_cache', 'record_index_objects'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format(
      'CREATE POLICY tenant_isolation ON %I USING (tenant_id = current_setting(''app.tenant_id'', true)) '
      'WITH CHECK (tenant_id = current_setting(''app.tenant_id'', true))', t);
  END LOOP;
END
$$;

-- A projection is inserted and dropped, never edited: no UPDATE. DELETE serves a rebuild and erasure.
GRANT SELECT, INSERT, DELETE ON record_index TO nocturne_app;
GRANT SELECT, INSERT, DELETE ON embedding_cache TO nocturne_app;
GRANT SELECT, INSERT, DELETE ON record_index_objects TO nocturne_app;

-- Down Migration

DROP TABLE record_index_objects;
DROP TABLE embedding_cache;
DROP TABLE record_index;
