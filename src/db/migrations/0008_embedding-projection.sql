-- Up Migration

-- Embeddings are a projection of the claims, rebuilt by reindexWorkflow when the embedding model
-- changes. A rebuild writes the new vectors beside the old ones (embedding_next) and moves
-- them into `embedding` for the whole tenant in one transaction once every page is done, so
-- the HNSW index never serves a half-rebuilt tenant. embedding_next has the same vector(N)
-- type as `embedding`: a dimension change is not a reindex (the column type is fixed at
-- migration time and runMigrations refuses another N).
DO $$
DECLARE
  t text;
BEGIN
  SELECT format_type(a.atttypid, a.atttypmod) INTO t
    FROM pg_attribute a
   WHERE a.attrelid = to_regclass('note_versions') AND a.attname = 'embedding' AND NOT a.attisdropped;
  IF t IS NULL THEN
    RAISE EXCEPTION 'note_versions.embedding is missing: migration 0002 must run first';
  END IF;
  EXECUTE format('ALTER TABLE note_versions ADD COLUMN embedding_next %s', t);
END
$$;

-- Which embedder produced a tenant's `embedding` vectors, and the rebuild in progress, if any.
-- Recall compares `model` with its own embedder's name: until a rebuild switches, a tenant's
-- vectors come from the previous model and vector similarity between the two is meaningless.
CREATE TABLE embedding_projections (
  tenant_id        text        PRIMARY KEY,
  model            text,
  dimension        integer     CHECK (dimension >= 1),
  generation       integer     NOT NULL DEFAULT 0 CHECK (generation >= 0),
  last_reindex     text,
  switched_at      timestamptz,
  pending_model    text,
  pending_reindex  text,
  pending_since    timestamptz,
  updated_at       timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE embedding_projections ENABLE ROW LEVEL SECURITY;
ALTER TABLE embedding_projections FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON embedding_projections
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

GRANT SELECT, INSERT, UPDATE ON embedding_projections TO nocturne_app;
-- Still only the projection columns of a version: the claim and everything else stay immutable.
GRANT UPDATE (embedding, embedding_next) ON note_versions TO nocturne_app;
