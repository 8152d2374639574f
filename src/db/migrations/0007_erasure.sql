-- Up Migration

-- Subject erasure (eraseSubjectWorkflow). Versions and audit entries stay immutable for the app
-- role; erasure gets three narrow SECURITY DEFINER functions instead of UPDATE/DELETE grants.
-- Each acts only on the tenant set by withTenant (app.tenant_id) and only in the one way erasure
-- needs, so a compromised app session cannot use them to rewrite history at will.

-- Working set of one erasure: the subject's record ids (to find notes citing them) and the
-- strings that identify the subject (user id, text of their records) for scrubbing and the
-- verification scan. It is the only copy of those strings once the archive is rewritten, so
-- the workflow deletes it as its last step, after the scan found nothing.
CREATE TABLE erasure_work (
  tenant_id  text NOT NULL,
  subject    text NOT NULL,          -- sha256 of tenant + user id: no user id in the key
  kind       text NOT NULL CHECK (kind IN ('record', 'needle')),
  value      text NOT NULL,
  PRIMARY KEY (tenant_id, subject, kind, value)
);

-- What erasure redacted in the audit log: the entry's original hash (so an externally anchored
-- chain head can be reconciled) and the sha256 of the original reason. Hashes, not content.
CREATE TABLE audit_redactions (
  tenant_id      text        NOT NULL,
  seq            bigint      NOT NULL,
  subject        text        NOT NULL,
  original_hash  text        NOT NULL,
  original_prev  text        NOT NULL,
  reason_sha256  text,
  redacted_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, seq, redacted_at)
);

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['erasure_work', 'audit_redactions'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format(
      'CREATE POLICY tenant_isolation ON %I USING (tenant_id = current_setting(''app.tenant_id'', true)) '
      'WITH CHECK (tenant_id = current_setting(''app.tenant_id'', true))', t);
  END LOOP;
END
$$;

GRANT SELECT, INSERT, DELETE ON erasure_work TO nocturne_app;
GRANT SELECT ON audit_redactions TO nocturne_app;

CREATE FUNCTION nocturne_current_tenant() RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  t text := current_setting('app.tenant_id', true);
BEGIN
  IF t IS NULL OR t = '' THEN
    RAISE EXCEPTION 'erasure functions run inside withTenant (app.tenant_id is not set)';
  END IF;
  RETURN t;
END
$$;

-- Scrubs every version of notes whose current status is 'erased' (and only those): claim,
-- evidence, scope key and embedding; deletes their usage rows. Idempotent.
CREATE FUNCTION nocturne_scrub_erased_notes(p_note_ids text[])
RETURNS TABLE (versions integer, embeddings integer, usage_rows integer)
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
  t text := nocturne_current_tenant();
BEGIN
  SELECT count(*) FILTER (WHERE v.embedding IS NOT NULL) INTO embeddings
    FROM note_versions v JOIN notes n ON n.tenant_id = v.tenant_id AND n.note_id = v.note_id
   WHERE v.tenant_id = t AND n.status = 'erased' AND v.note_id = ANY(p_note_ids);
  UPDATE note_versions v
     SET claim = '[erased]', evidence = '[]'::jsonb, scope_key = 'erased', embedding = NULL
    FROM notes n
   WHERE n.tenant_id = t AND n.note_id = v.note_id AND n.status = 'erased'
     AND v.tenant_id = t AND v.note_id = ANY(p_note_ids)
     AND (v.claim <> '[erased]' OR v.evidence <> '[]'::jsonb OR v.scope_key <> 'erased' OR v.embedding IS NOT NULL);
  GET DIAGNOSTICS versions = ROW_COUNT;
  DELETE FROM memory_usage u
   USING notes n
   WHERE u.tenant_id = t AND n.tenant_id = t AND n.note_id = u.note_id AND n.status = 'erased'
     AND u.note_id = ANY(p_note_ids);
  GET DIAGNOSTICS usage_rows = ROW_COUNT;
  RETURN NEXT;
END
$$;

-- Deletes consolidation work rows (validated ops, rejected proposals) of the tenant that
-- contain any of the subject's strings. Runs that are finished no longer read them.
CREATE FUNCTION nocturne_scrub_run_work(p_needles text[])
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
  t text := nocturne_current_tenant();
  a integer;
  b integer;
BEGIN
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

-- Replaces audit reasons by the sha256 of what they said and re-links the chain after them.
-- p_entries: [{ seq, reason, prevHash, hash }] computed by the caller (under the tenant write
-- lock) with the same canonical hash as every other entry, so verifyAuditChain still passes.
-- Enforced here: a reason may only become '[erased sha256:<sha256 of the old reason>]'; no
-- other column but the two hashes can change; every changed hash is recorded first.
CREATE FUNCTION nocturne_redact_audit(p_subject text, p_entries jsonb)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
  t text := nocturne_current_tenant();
  e record;
  old audit_log%ROWTYPE;
  digest text;
  n integer := 0;
BEGIN
  FOR e IN SELECT * FROM jsonb_to_recordset(p_entries) AS x(seq bigint, reason text, "prevHash" text, hash text) ORDER BY seq LOOP
    SELECT * INTO old FROM audit_log WHERE tenant_id = t AND seq = e.seq FOR UPDATE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'audit entry % does not exist', e.seq;
    END IF;
    digest := encode(sha256(convert_to(old.reason, 'UTF8')), 'hex');
    IF e.reason <> old.reason AND e.reason <> '[erased sha256:' || digest || ']' THEN
      RAISE EXCEPTION 'audit entry %: a reason may only be replaced by its own hash', e.seq;
    END IF;
    IF e.reason = old.reason AND e."prevHash" = old.prev_hash AND e.hash = old.hash THEN
      CONTINUE;
    END IF;
    INSERT INTO audit_redactions (tenant_id, seq, subject, original_hash, original_prev, reason_sha256)
    VALUES (t, e.seq, p_subject, old.hash, old.prev_hash, CASE WHEN e.reason <> old.reason THEN digest END);
    UPDATE audit_log SET reason = e.reason, prev_hash = e."prevHash", hash = e.hash WHERE tenant_id = t AND seq = e.seq;
    n := n + 1;
  END LOOP;
  RETURN n;
END
$$;

-- Pin the search path of the definer functions to this schema (tests run one schema each),
-- and let only the app role call them.
DO $$
DECLARE
  f text;
BEGIN
  FOREACH f IN ARRAY ARRAY['nocturne_current_tenant()', 'nocturne_scrub_erased_notes(text[])',
                           'nocturne_scrub_run_work(text[])', 'nocturne_redact_audit(text, jsonb)'] LOOP
    EXECUTE format('ALTER FUNCTION %s SET search_path = %I, public, pg_temp', f, current_schema());
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO nocturne_app', f);
  END LOOP;
END
$$;
