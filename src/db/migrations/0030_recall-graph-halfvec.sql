-- Up Migration

-- The recall projection's partition graphs are built over half-precision copies of the vectors
-- (`embedding::halfvec(N)`, pgvector's halfvec_cosine_ops) instead of the full-precision column:
-- an element of the graph takes about half the bytes, so a search reads fewer index pages, and
-- more of every tenant's graph stays in shared_buffers. The graph only orders the candidates:
-- the distance each row returns is still computed from the full-precision vector in its row, and
-- recall sorts by that. At 100k notes the largest tenant's graph took 36 MB instead of 60 MB, its
-- 50 nearest overlapped the full-precision graph's in 99.96% of the top 10, and a search through
-- it took 12% less time at p50 and p95 (docs/BENCHMARKS.md, "Half-precision partition graphs").
--
-- The statements name the dimension (`::halfvec(N)`) so that their ORDER BY matches this index
-- expression. The parameters (m = 24, ef_construction = 128) are those of migration 0024.
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

DO $$
DECLARE
  partitions constant integer := 64;
  graph constant text := 'USING hnsw (embedding vector_cosine_ops) WITH (m = 24, ef_construction = 128)';
  p text;
BEGIN
  DROP INDEX note_recall_hnsw;
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
