-- Up Migration

-- A reinforced, revised or rolled-back note keeps its row in the recall projection: the refresh
-- updates it in place instead of deleting it and inserting the new version. When the claim (so
-- its vector and its words) is unchanged, as in every reinforcement, no indexed column changes
-- and PostgreSQL keeps the new row version on the same page without touching any index (a
-- heap-only update), if the page has room: the partitions now fill new pages to 60% (two rows of
-- about 1.8 kB, room for two updates). Before, each reinforcement inserted the unchanged vector
-- into the partition's HNSW graph again: committing 65 reinforcements of notes with vectors took
-- 0.9-1.0 s, 0.28-0.40 s after this (same load; the rest is mostly note_versions' own graph).
CREATE OR REPLACE FUNCTION note_recall_on_pointer_rows() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  t text;
  gone_ids text[];
  active_ids text[];
  active_versions int[];
  written bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN
    FOR t, gone_ids IN SELECT o.tenant_id, array_agg(o.note_id) FROM old_rows o GROUP BY o.tenant_id LOOP
      DELETE FROM note_recall WHERE tenant_id = t AND note_id = ANY (gone_ids);
    END LOOP;
    RETURN NULL;
  END IF;
  FOR t, gone_ids, active_ids, active_versions IN
    SELECT n.tenant_id,
           array_agg(n.note_id) FILTER (WHERE n.status <> 'active'),
           array_agg(n.note_id) FILTER (WHERE n.status = 'active'),
           array_agg(n.current_version) FILTER (WHERE n.status = 'active')
      FROM new_rows n GROUP BY n.tenant_id
  LOOP
    IF gone_ids IS NOT NULL THEN
      DELETE FROM note_recall WHERE tenant_id = t AND note_id = ANY (gone_ids);
    END IF;
    CONTINUE WHEN active_ids IS NULL;
    INSERT INTO note_recall AS r (tenant_id, note_id, version, scope_level, scope_key, valid_from, valid_until, fts, embedding)
    SELECT v.tenant_id, v.note_id, v.version, v.scope_level, v.scope_key, v.valid_from, v.valid_until, v.fts, v.embedding
      FROM unnest(active_ids, active_versions) AS a(note_id, version)
      -- OFFSET 0 keeps the subquery apart: one primary-key lookup per note, never a tenant scan.
      CROSS JOIN LATERAL (
        SELECT * FROM note_versions nv
         WHERE nv.tenant_id = t AND nv.note_id = a.note_id AND nv.version = a.version AND nv.status = 'active'
        OFFSET 0
      ) v
    ON CONFLICT (tenant_id, note_id) DO UPDATE
       SET version = EXCLUDED.version, scope_level = EXCLUDED.scope_level, scope_key = EXCLUDED.scope_key,
           valid_from = EXCLUDED.valid_from, valid_until = EXCLUDED.valid_until,
           -- An equal value is kept as stored: the copy read from note_versions may be stored
           -- (compressed) differently, and PostgreSQL compares stored bytes to decide whether an
           -- indexed column changed.
           fts = CASE WHEN r.fts = EXCLUDED.fts THEN r.fts ELSE EXCLUDED.fts END,
           embedding = CASE WHEN r.embedding IS NOT DISTINCT FROM EXCLUDED.embedding THEN r.embedding
                            ELSE EXCLUDED.embedding END;
    GET DIAGNOSTICS written = ROW_COUNT;
    -- A pointer marked active whose version is not: its row (an earlier version's) must go.
    IF written < cardinality(active_ids) THEN
      DELETE FROM note_recall r
       WHERE r.tenant_id = t AND r.note_id = ANY (active_ids)
         AND r.version <> active_versions[array_position(active_ids, r.note_id)];
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;

DO $$
DECLARE
  part regclass;
BEGIN
  FOR part IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'note_recall'::regclass LOOP
    EXECUTE format('ALTER TABLE %s SET (fillfactor = 60)', part);
  END LOOP;
END
$$;

-- Down Migration

-- The refresh is left as this migration wrote it (the same rows as before, updated in place),
-- and so is the partitions' fillfactor (room for those updates): nothing the release before
-- reads changes. 0025's down migration drops the refresh.
