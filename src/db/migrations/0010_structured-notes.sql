-- Up Migration

-- A note version may carry the structure its claim was rendered from (subject, attribute,
-- value, polarity, conditions, time). Versions written before have none and stay as they are.
ALTER TABLE note_versions ADD COLUMN structure jsonb;

-- A correction about one conversation ("it was moved to 4pm") holds in that session only.
ALTER TABLE note_versions DROP CONSTRAINT note_versions_scope_level_check;
ALTER TABLE note_versions ADD CONSTRAINT note_versions_scope_level_check
  CHECK (scope_level IN ('session', 'user', 'agent', 'task_type', 'tenant'));

-- An erased note's structure names its subject like its claim does: scrubbed with it.
CREATE OR REPLACE FUNCTION nocturne_scrub_erased_notes(p_note_ids text[])
RETURNS TABLE (versions integer, embeddings integer, usage_rows integer)
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
  t text := nocturne_current_tenant();
BEGIN
  SELECT count(*) FILTER (WHERE v.embedding IS NOT NULL) INTO embeddings
    FROM note_versions v JOIN notes n ON n.tenant_id = v.tenant_id AND n.note_id = v.note_id
   WHERE v.tenant_id = t AND n.status = 'erased' AND v.note_id = ANY(p_note_ids);
  UPDATE note_versions v
     SET claim = '[erased]', evidence = '[]'::jsonb, scope_key = 'erased', embedding = NULL, structure = NULL
    FROM notes n
   WHERE n.tenant_id = t AND n.note_id = v.note_id AND n.status = 'erased'
     AND v.tenant_id = t AND v.note_id = ANY(p_note_ids)
     AND (v.claim <> '[erased]' OR v.evidence <> '[]'::jsonb OR v.scope_key <> 'erased' OR v.embedding IS NOT NULL
          OR v.structure IS NOT NULL);
  GET DIAGNOSTICS versions = ROW_COUNT;
  DELETE FROM memory_usage u
   USING notes n
   WHERE u.tenant_id = t AND n.tenant_id = t AND n.note_id = u.note_id AND n.status = 'erased'
     AND u.note_id = ANY(p_note_ids);
  GET DIAGNOSTICS usage_rows = ROW_COUNT;
  RETURN NEXT;
END
$$;

-- Down Migration

ALTER TABLE note_versions DROP CONSTRAINT note_versions_scope_level_check;
ALTER TABLE note_versions ADD CONSTRAINT note_versions_scope_level_check
  CHECK (scope_level IN ('user', 'agent', 'task_type', 'tenant'));
ALTER TABLE note_versions DROP COLUMN structure;
