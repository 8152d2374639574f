-- Up Migration

-- Least privilege (docs/SECURITY.md). The runtime login is NOSUPERUSER NOBYPASSRLS and holds the
-- app role's rights only; these functions are the one way it may touch immutable rows, so they
-- are owned by the owner login that runs the migrations (not a superuser on a provisioned
-- server) and check what they are told instead of trusting it:
-- - scrubbing a note requires that its current version is an 'erased' version recorded by an
--   'erase' audit entry (the app role cannot edit a version's status, only write new ones, and
--   every new one is audited), so a session cannot wipe a live note's history unseen;
-- - scrubbing run work and redacting audit reasons require the strings to be the working set of
--   an erasure in progress (erasure_work);
-- - the audit chain is re-linked with hashes computed here, never with hashes the caller sends.

-- The canonical audit hash (src/db/audit/hash.ts: sha256 over the JSON of the entry's fields in
-- a fixed order, as JSON.stringify writes it). to_json escapes text as JSON.stringify does.
CREATE FUNCTION nocturne_audit_hash(
  p_seq bigint, p_tenant text, p_at timestamptz, p_actor text, p_action text, p_note text,
  p_from integer, p_to integer, p_reason text, p_prev text
) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT encode(sha256(convert_to(
    '{"seq":' || p_seq
    || ',"tenantId":' || to_json(p_tenant)::text
    || ',"at":' || to_json(to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text
    || ',"actor":' || to_json(p_actor)::text
    || ',"action":' || to_json(p_action)::text
    || ',"noteId":' || to_json(p_note)::text
    || ',"fromVersion":' || coalesce(p_from::text, 'null')
    || ',"toVersion":' || coalesce(p_to::text, 'null')
    || ',"reason":' || to_json(p_reason)::text
    || ',"prevHash":' || to_json(p_prev)::text
    || '}', 'UTF8')), 'hex')
$$;

CREATE OR REPLACE FUNCTION nocturne_scrub_erased_notes(p_note_ids text[])
RETURNS TABLE (versions integer, embeddings integer, usage_rows integer)
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
  t text := nocturne_current_tenant();
  unrecorded text;
BEGIN
  SELECT x INTO unrecorded FROM unnest(p_note_ids) x
   WHERE NOT EXISTS (
     SELECT 1 FROM notes n
       JOIN note_versions cv ON cv.tenant_id = n.tenant_id AND cv.note_id = n.note_id AND cv.version = n.current_version
       JOIN audit_log a ON a.tenant_id = n.tenant_id AND a.note_id = n.note_id AND a.to_version = n.current_version
      WHERE n.tenant_id = t AND n.note_id = x AND n.status = 'erased' AND cv.status = 'erased' AND a.action = 'erase')
   LIMIT 1;
  IF unrecorded IS NOT NULL THEN
    RAISE EXCEPTION 'note % has no erase record at its current version: not scrubbed', unrecorded
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  SELECT count(*) FILTER (WHERE v.embedding IS NOT NULL) INTO embeddings
    FROM note_versions v WHERE v.tenant_id = t AND v.note_id = ANY(p_note_ids);
  UPDATE note_versions v
     SET claim = '[erased]', evidence = '[]'::jsonb, scope_key = 'erased', embedding = NULL, structure = NULL
   WHERE v.tenant_id = t AND v.note_id = ANY(p_note_ids)
     AND (v.claim <> '[erased]' OR v.evidence <> '[]'::jsonb OR v.scope_key <> 'erased' OR v.embedding IS NOT NULL
          OR v.structure IS NOT NULL);
  GET DIAGNOSTICS versions = ROW_COUNT;
  DELETE FROM memory_usage u WHERE u.tenant_id = t AND u.note_id = ANY(p_note_ids);
  GET DIAGNOSTICS usage_rows = ROW_COUNT;
  RETURN NEXT;
END
$$;

-- Raises unless every non-empty needle belongs to an erasure in progress in this tenant.
CREATE FUNCTION nocturne_require_erasure_needles(p_tenant text, p_needles text[]) RETURNS void
LANGUAGE plpgsql STABLE AS $$
DECLARE
  stray text;
BEGIN
  SELECT x INTO stray FROM unnest(p_needles) x
   WHERE x <> '' AND NOT EXISTS (
     SELECT 1 FROM erasure_work w WHERE w.tenant_id = p_tenant AND w.kind = 'needle' AND w.value = x)
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'a string to scrub is not part of an erasure in progress' USING ERRCODE = 'insufficient_privilege';
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION nocturne_scrub_run_work(p_needles text[])
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
  t text := nocturne_current_tenant();
  a integer;
  b integer;
BEGIN
  PERFORM nocturne_require_erasure_needles(t, p_needles);
  DELETE FROM run_batches r
   WHERE r.tenant_id = t
     AND EXISTS (SELECT 1 FROM unnest(p_needles) x WHERE x <> '' AND strpos(r.ops::text || r.summary::text, x) > 0);
  GET DIAGNOSTICS a = ROW_COUNT;
  DELETE FROM run_rejections r
   WHERE r.tenant_id = t
     AND EXISTS (SELECT 1 FROM unnest(p_needles) x WHERE x <> '' AND strpos(r.detail || r.proposal::text, x) > 0);
  GET DIAGNOSTICS b = ROW_COUNT;
  RETURN a + b;
END
$$;

-- The caller names the erasure (subject) and its strings; this function finds the entries whose
-- reason holds one, replaces each such reason by '[erased sha256:<sha256 of it>]' and re-links
-- the chain from the first of them with hashes it computes itself. Original hashes go to
-- audit_redactions first. Idempotent: a second call finds no reason left to redact.
DROP FUNCTION nocturne_redact_audit(text, jsonb);
CREATE FUNCTION nocturne_redact_audit(p_subject text, p_needles text[])
RETURNS TABLE (redacted integer, relinked integer)
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
  t text := nocturne_current_tenant();
  first_seq bigint;
  e audit_log%ROWTYPE;
  prev text;
  new_reason text;
  new_hash text;
  hit boolean;
BEGIN
  PERFORM nocturne_require_erasure_needles(t, p_needles);
  IF NOT EXISTS (SELECT 1 FROM erasure_work w WHERE w.tenant_id = t AND w.subject = p_subject) THEN
    RAISE EXCEPTION 'no erasure in progress for this subject' USING ERRCODE = 'insufficient_privilege';
  END IF;
  redacted := 0;
  relinked := 0;
  PERFORM 1 FROM audit_log WHERE tenant_id = t FOR UPDATE;
  SELECT min(a.seq) INTO first_seq FROM audit_log a
   WHERE a.tenant_id = t AND EXISTS (SELECT 1 FROM unnest(p_needles) x WHERE x <> '' AND strpos(a.reason, x) > 0);
  IF first_seq IS NULL THEN
    RETURN NEXT;
    RETURN;
  END IF;
  SELECT a.prev_hash INTO prev FROM audit_log a WHERE a.tenant_id = t AND a.seq = first_seq;
  FOR e IN SELECT * FROM audit_log a WHERE a.tenant_id = t AND a.seq >= first_seq ORDER BY a.seq LOOP
    hit := EXISTS (SELECT 1 FROM unnest(p_needles) x WHERE x <> '' AND strpos(e.reason, x) > 0);
    new_reason := CASE WHEN hit
      THEN '[erased sha256:' || encode(sha256(convert_to(e.reason, 'UTF8')), 'hex') || ']' ELSE e.reason END;
    new_hash := nocturne_audit_hash(e.seq, e.tenant_id, e.at, e.actor, e.action, e.note_id, e.from_version,
                                    e.to_version, new_reason, prev);
    IF hit THEN
      redacted := redacted + 1;
    END IF;
    IF new_reason <> e.reason OR prev <> e.prev_hash OR new_hash <> e.hash THEN
      INSERT INTO audit_redactions (tenant_id, seq, subject, original_hash, original_prev, reason_sha256)
      VALUES (t, e.seq, p_subject, e.hash, e.prev_hash,
              CASE WHEN hit THEN encode(sha256(convert_to(e.reason, 'UTF8')), 'hex') END);
      UPDATE audit_log SET reason = new_reason, prev_hash = prev, hash = new_hash WHERE tenant_id = t AND seq = e.seq;
      relinked := relinked + 1;
    END IF;
    prev := new_hash;
  END LOOP;
  RETURN NEXT;
END
$$;

DO $$
DECLARE
  f text;
BEGIN
  FOREACH f IN ARRAY ARRAY['nocturne_audit_hash(bigint, text, timestamptz, text, text, text, integer, integer, text, text)',
                           'nocturne_require_erasure_needles(text, text[])',
                           'nocturne_scrub_erased_notes(text[])', 'nocturne_scrub_run_work(text[])',
                           'nocturne_redact_audit(text, text[])'] LOOP
    EXECUTE format('ALTER FUNCTION %s SET search_path = %I, public, pg_temp', f, current_schema());
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
  END LOOP;
  EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO nocturne_app', 'nocturne_scrub_erased_notes(text[])');
  EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO nocturne_app', 'nocturne_scrub_run_work(text[])');
  EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO nocturne_app', 'nocturne_redact_audit(text, text[])');
END
$$;
