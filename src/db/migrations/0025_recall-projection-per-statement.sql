-- Up Migration

-- The recall projection (0013) follows the current pointers a statement at a time instead of a
-- row at a time. The row trigger called note_recall_refresh once per note, and each call planned
-- its DELETE and INSERT against the 64 partitions of note_recall anew: committing a batch of 500
-- notes spent 95% of its time there (200 notes: 3.0–4.2 s with the row trigger, 0.08–0.14 s
-- without it, on the embedded store; `nocturne bench commit` fell from 6.45x to 1.5–1.7x the
-- single-row inserts on PostgreSQL). A statement trigger reads the statement's rows from its
-- transition table and refreshes all of them with one DELETE and one INSERT, in the writer's own
-- transaction as before. Transition tables allow one event per trigger, hence three triggers on
-- one function. note_recall_refresh stays for single notes.
DROP TRIGGER note_recall_pointer ON notes;
DROP FUNCTION note_recall_on_pointer();

CREATE FUNCTION note_recall_on_pointer_rows() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM note_recall r USING old_rows o WHERE r.tenant_id = o.tenant_id AND r.note_id = o.note_id;
    RETURN NULL;
  END IF;
  DELETE FROM note_recall r USING new_rows n WHERE r.tenant_id = n.tenant_id AND r.note_id = n.note_id;
  INSERT INTO note_recall (tenant_id, note_id, version, scope_level, scope_key, valid_from, valid_until, fts, embedding)
  SELECT v.tenant_id, v.note_id, v.version, v.scope_level, v.scope_key, v.valid_from, v.valid_until, v.fts, v.embedding
    FROM new_rows n
    JOIN note_versions v ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
   WHERE n.status = 'active' AND v.status = 'active';
  RETURN NULL;
END
$$;

CREATE TRIGGER note_recall_pointer_insert AFTER INSERT ON notes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_recall_on_pointer_rows();
CREATE TRIGGER note_recall_pointer_update AFTER UPDATE ON notes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_recall_on_pointer_rows();
CREATE TRIGGER note_recall_pointer_delete AFTER DELETE ON notes
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_recall_on_pointer_rows();

-- Down Migration

-- Back to 0013's row trigger (this migration dropped it, and applying it again drops it by name).
DROP TRIGGER note_recall_pointer_insert ON notes;
DROP TRIGGER note_recall_pointer_update ON notes;
DROP TRIGGER note_recall_pointer_delete ON notes;
DROP FUNCTION note_recall_on_pointer_rows();

CREATE FUNCTION note_recall_on_pointer() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM note_recall WHERE tenant_id = OLD.tenant_id AND note_id = OLD.note_id;
    RETURN NULL;
  END IF;
  PERFORM note_recall_refresh(NEW.tenant_id, NEW.note_id);
  RETURN NULL;
END
$$;

CREATE TRIGGER note_recall_pointer AFTER INSERT OR UPDATE OR DELETE ON notes
  FOR EACH ROW EXECUTE FUNCTION note_recall_on_pointer();
