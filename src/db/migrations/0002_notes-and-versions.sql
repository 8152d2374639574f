-- Up Migration

-- Immutable note versions: a change inserts version N+1, it never rewrites a row
-- (the app role has no UPDATE or DELETE here).
CREATE TABLE note_versions (
  tenant_id          text             NOT NULL,
  note_id            text             NOT NULL,
  version            integer          NOT NULL CHECK (version >= 1),
  status             text             NOT NULL
                     CHECK (status IN ('staged', 'active', 'superseded', 'retired', 'quarantined', 'erased')),
  scope_level        text             NOT NULL CHECK (scope_level IN ('user', 'agent', 'task_type', 'tenant')),
  scope_key          text             NOT NULL,
  kind               text             NOT NULL
                     CHECK (kind IN ('constraint', 'preference', 'fact', 'strategy', 'failure_cause',
                                     'tool_behavior', 'episode_summary')),
  claim              text             NOT NULL,
  evidence           jsonb            NOT NULL CHECK (jsonb_typeof(evidence) = 'array'),
  source_kind        text             NOT NULL
                     CHECK (source_kind IN ('user_requirement', 'user_correction', 'tool_fact', 'approval', 'inference')),
  confidence         double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
  importance         double precision NOT NULL CHECK (importance BETWEEN 0 AND 1),
  valid_from         timestamptz      NOT NULL,
  valid_until        timestamptz,
  superseded_by      text,
  source_count       integer          NOT NULL CHECK (source_count >= 1),
  last_confirmed_at  timestamptz      NOT NULL,
  contradicted_at    timestamptz,
  created_by_run     text,
  created_at         timestamptz      NOT NULL DEFAULT now(),
  -- 'simple' (no stemming, no stop words): claims come in many languages, and recall must
  -- build its tsquery with the same configuration.
  fts                tsvector         GENERATED ALWAYS AS (to_tsvector('simple', claim)) STORED,
  PRIMARY KEY (tenant_id, note_id, version)
);

-- The embedding column's dimension comes from configuration (NOCTURNE_EMBEDDING_DIM), passed
-- by runMigrations as the session setting nocturne.embedding_dimension.
DO $$
DECLARE
  dim text := current_setting('nocturne.embedding_dimension', true);
BEGIN
  IF dim IS NULL OR dim !~ '^[0-9]+$' THEN
    RAISE EXCEPTION 'nocturne.embedding_dimension is not set: run migrations through runMigrations()';
  END IF;
  EXECUTE format('ALTER TABLE note_versions ADD COLUMN embedding vector(%s)', dim::integer);
END
$$;

CREATE INDEX note_versions_embedding_hnsw ON note_versions USING hnsw (embedding vector_cosine_ops);
CREATE INDEX note_versions_fts_gin ON note_versions USING gin (fts);
-- Reindexing finds a run's versions (and their missing embeddings) by run id.
CREATE INDEX note_versions_run_idx ON note_versions (tenant_id, created_by_run);

-- The current pointer. Its foreign key makes a pointer to a version that was never written
-- impossible, so versions are inserted before the pointer moves.
CREATE TABLE notes (
  tenant_id        text        NOT NULL,
  note_id          text        NOT NULL,
  current_version  integer     NOT NULL,
  status           text        NOT NULL
                   CHECK (status IN ('staged', 'active', 'superseded', 'retired', 'quarantined', 'erased')),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, note_id),
  FOREIGN KEY (tenant_id, note_id, current_version) REFERENCES note_versions (tenant_id, note_id, version)
);

-- No (tenant, status) index: listing walks the primary key in note id order and filters, which
-- pages fine, and every index here is paid on each committed note.
