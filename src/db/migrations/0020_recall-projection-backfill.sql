-- Up Migration

-- Notes written before 0013 get their recall projection rows here. 0013's own backfill ran as
-- the owner under FORCE row-level security, which shows the owner no tenant's rows, so a store
-- upgraded across 0012 and 0013 had an empty projection until `nocturne index notes --rebuild`.
-- Lifting FORCE inside this migration's transaction lets the owner read every tenant once; it
-- is forced again before the transaction commits, so no other session ever sees it lifted.
-- Idempotent: rows already there (written by the triggers or a rebuild) are left alone.
ALTER TABLE notes NO FORCE ROW LEVEL SECURITY;
ALTER TABLE note_versions NO FORCE ROW LEVEL SECURITY;
ALTER TABLE note_recall NO FORCE ROW LEVEL SECURITY;

INSERT INTO note_recall (tenant_id, note_id, version, scope_level, scope_key, valid_from, valid_until, fts, embedding)
SELECT v.tenant_id, v.note_id, v.version, v.scope_level, v.scope_key, v.valid_from, v.valid_until, v.fts, v.embedding
  FROM notes n
  JOIN note_versions v ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
 WHERE n.status = 'active' AND v.status = 'active'
ON CONFLICT (tenant_id, note_id) DO NOTHING;

ALTER TABLE notes FORCE ROW LEVEL SECURITY;
ALTER TABLE note_versions FORCE ROW LEVEL SECURITY;
ALTER TABLE note_recall FORCE ROW LEVEL SECURITY;

-- Down Migration

-- Nothing to undo: the rows it wrote are the ones the projection holds for those notes anyway.
