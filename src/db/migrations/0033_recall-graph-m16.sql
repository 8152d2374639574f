-- Up Migration

-- The recall projection's partition graphs are rebuilt with m = 16 neighbours per node
-- (pgvector's default) instead of 24; ef_construction stays 128, the vectors half precision.
-- Migration 0024 chose 24 when a graph read that settled in the wrong region went unnoticed;
-- since then recall checks every graph read against the full-text rows and reads exactly when
-- one of them is nearer than the read's nearest (graphReadMissedNearer). A search of the
-- sparser graph reads a third fewer neighbours per step: at 100k notes the recall path's p95
-- against the unfiltered query fell from a median of 2.03 (seven runs) to 1.79 (eight), and at
-- 1M notes every tenant's mean recall@10 stayed at 0.99 or more (docs/BENCHMARKS.md, "Sparser
-- partition graphs"). The graphs also build in a fifth to a quarter less time.
--
-- As in migration 0031, dropping the parent's index drops every partition's; each is built
-- again under its stable name and attached to a parent declared with the same parameters. On a
-- large store this migration runs as long as `CREATE INDEX` over all vectors does.
DO $$
DECLARE
  partitions constant integer := 64;
  graph constant text := 'USING hnsw (embedding halfvec_cosine_ops) WITH (m = 16, ef_construction = 128)';
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

-- The graphs of migration 0031 (m = 24).
DO $$
DECLARE
  partitions constant integer := 64;
  graph constant text := 'USING hnsw (embedding halfvec_cosine_ops) WITH (m = 24, ef_construction = 128)';
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
