-- Up Migration

-- The recall projection keeps its vectors in half precision (pgvector's halfvec): a row takes
-- about 1 kB instead of 1.8 kB at 384 dimensions, so a tenant's exact read and a graph read's
-- row fetches touch half the pages, and twice as many rows stay in shared_buffers. Migration
-- 0030 already ordered the partition graphs by half-precision copies; the graphs are now built
-- over the column itself. The projection orders candidates only: every distance recall returns
-- is computed from the full-precision vector of the version row it joins (note_versions), so a
-- note's distance is the same whichever channel read it, and the top 10 are ordered exactly
-- (docs/BENCHMARKS.md, "Half-precision projection rows").
--
-- Writes need no change: pgvector casts vector to halfvec implicitly, so the triggers and the
-- rebuild keep copying note_versions.embedding. The table is rewritten once.
DO $$
DECLARE
  partitions constant integer := 64;
  dim text := current_setting('nocturne.embedding_dimension', true);
  graph constant text := 'USING hnsw (embedding halfvec_cosine_ops) WITH (m = 24, ef_construction = 128)';
  p text;
BEGIN
  IF dim IS NULL OR dim !~ '^[0-9]+$' THEN
    RAISE EXCEPTION 'nocturne.embedding_dimension is not set: run migrations through runMigrations()';
  END IF;
  DROP INDEX note_recall_hnsw;
  EXECUTE format('ALTER TABLE note_recall ALTER COLUMN embedding TYPE halfvec(%1$s) USING embedding::halfvec(%1$s)', dim::integer);
  -- As migration 0028: the vector stays in its row rather than in the TOAST table.
  ALTER TABLE note_recall ALTER COLUMN embedding SET STORAGE MAIN;
  FOR i IN 0 .. partitions - 1 LOOP
    p := format('note_recall_p%s', lpad(i::text, 2, '0'));
    EXECUTE format('CREATE INDEX %I ON %I %s', p || '_hnsw', p, graph);
  END LOOP;
  EXECUTE format('CREATE INDEX note_recall_hnsw ON ONLY note_recall %s', graph);
  FOR i IN 0 .. partitions - 1 LOOP
    EXECUTE format('ALTER INDEX note_recall_hnsw ATTACH PARTITION %I', format('note_recall_p%s_hnsw', lpad(i::text, 2, '0')));
  END LOOP;
END
$$;

-- Down Migration

-- Back to full precision, copied again from the version rows (a halfvec has lost digits), and
-- the graphs of migration 0030 over half-precision copies.
DO $$
DECLARE
  partitions constant integer := 64;
  dim text := current_setting('nocturne.embedding_dimension', true);
  graph text;
  p text;
BEGIN
  IF dim IS NULL OR dim !~ '^[0-9]+$' THEN
    RAISE EXCEPTION 'nocturne.embedding_dimension is not set: run migrations through runMigrations()';
  END IF;
  graph := format('USING hnsw ((embedding::halfvec(%s)) halfvec_cosine_ops) WITH (m = 24, ef_construction = 128)', dim::integer);
  DROP INDEX note_recall_hnsw;
  EXECUTE format('ALTER TABLE note_recall ALTER COLUMN embedding TYPE vector(%1$s) USING embedding::vector(%1$s)', dim::integer);
  ALTER TABLE note_recall ALTER COLUMN embedding SET STORAGE MAIN;
  -- As migration 0020: FORCE row-level security is lifted inside this transaction only, so the
  -- owner sees every tenant's rows.
  ALTER TABLE note_versions NO FORCE ROW LEVEL SECURITY;
  ALTER TABLE note_recall NO FORCE ROW LEVEL SECURITY;
  UPDATE note_recall r SET embedding = v.embedding
    FROM note_versions v
   WHERE v.tenant_id = r.tenant_id AND v.note_id = r.note_id AND v.version = r.version;
  ALTER TABLE note_versions FORCE ROW LEVEL SECURITY;
  ALTER TABLE note_recall FORCE ROW LEVEL SECURITY;
  FOR i IN 0 .. partitions - 1 LOOP
    p := format('note_recall_p%s', lpad(i::text, 2, '0'));
    EXECUTE format('CREATE INDEX %I ON %I %s', p || '_hnsw', p, graph);
  END LOOP;
  EXECUTE format('CREATE INDEX note_recall_hnsw ON ONLY note_recall %s', graph);
  FOR i IN 0 .. partitions - 1 LOOP
    EXECUTE format('ALTER INDEX note_recall_hnsw ATTACH PARTITION %I', format('note_recall_p%s_hnsw', lpad(i::text, 2, '0')));
  END LOOP;
END
$$;
