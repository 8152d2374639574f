-- Up Migration

-- The statement triggers of 0025 joined the transition table to note_recall and note_versions.
-- The planner knows nothing of a transition table's rows once the tenant policy filters them
-- (it estimates one or two), and on tables without fresh statistics it chose a nested loop that
-- read every row of the tenant for each note of the statement: committing 500 notes into a
-- tenant that already had 3,500 compared 1.9 million row pairs, and each batch was slower than the
-- one before (`nocturne bench commit` at 0.66x the single-row inserts). The refresh now collects
-- the statement's note ids (and the active ones' versions) into arrays per tenant and reaches both
-- tables through their primary keys, whatever the statistics say.
CREATE OR REPLACE FUNCTION note_recall_on_pointer_rows() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  t text;
  ids text[];
  active_ids text[];
  active_versions int[];
BEGIN
  IF TG_OP = 'DELETE' THEN
    FOR t, ids IN SELECT o.tenant_id, array_agg(o.note_id) FROM old_rows o GROUP BY o.tenant_id LOOP
      DELETE FROM note_recall WHERE tenant_id = t AND note_id = ANY (ids);
    END LOOP;
    RETURN NULL;
  END IF;
  FOR t, ids, active_ids, active_versions IN
    SELECT n.tenant_id, array_agg(n.note_id),
           array_agg(n.note_id) FILTER (WHERE n.status = 'active'),
           array_agg(n.current_version) FILTER (WHERE n.status = 'active')
      FROM new_rows n GROUP BY n.tenant_id
  LOOP
    DELETE FROM note_recall WHERE tenant_id = t AND note_id = ANY (ids);
    CONTINUE WHEN active_ids IS NULL;
    INSERT INTO note_recall (tenant_id, note_id, version, scope_level, scope_key, valid_from, valid_until, fts, embedding)
    SELECT v.tenant_id, v.note_id, v.version, v.scope_level, v.scope_key, v.valid_from, v.valid_until, v.fts, v.embedding
      FROM unnest(active_ids, active_versions) AS a(note_id, version)
      -- OFFSET 0 keeps the subquery apart: one primary-key lookup per note, never a tenant scan.
      CROSS JOIN LATERAL (
        SELECT * FROM note_versions nv
         WHERE nv.tenant_id = t AND nv.note_id = a.note_id AND nv.version = a.version AND nv.status = 'active'
        OFFSET 0
      ) v;
  END LOOP;
  RETURN NULL;
END
$$;

-- Down Migration

-- The refresh is left as this migration wrote it: it keeps the projection exactly as 0025's did,
-- only through the primary keys, and 0025's down migration drops it.
