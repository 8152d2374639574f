-- Up Migration

-- The recall projection's partition graphs (0013) are rebuilt denser: m = 24 neighbours per
-- node and ef_construction = 128 instead of pgvector's defaults (16, 64). With the defaults, the
-- largest tenant of `nocturne bench recall` (30,772 rows in one partition) had now and then a
-- query whose graph search settled in the wrong region and returned none of its true top 10,
-- whatever the tenant filter (the same with the index forced); on the same rows, 200 queries
-- found all of their true top 10 with this graph, at ef_search 40 and 100 alike
-- (docs/BENCHMARKS.md, "Recall"). The build takes about three times as long as with the defaults.
--
-- Dropping the parent's index drops every partition's; each is built again under its stable
-- name (a plan names it: note_recall_p07_hnsw) and attached to a parent declared with the same
-- parameters. The build reads every row of the projection: on a large store this migration
-- runs as long as `CREATE INDEX` over all vectors does.
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

-- Down Migration

-- The denser graphs stay: the release before reads them as it read its own, and applying this
-- migration again builds them once more.
