-- Up Migration

-- Erasure that always finishes, leaves nothing behind, and keeps other writers of the tenant out
-- while it runs (docs/SECURITY.md, "Erasure").

-- Requests: `nocturne erase` stores the user id here under a random handle, and the workflow and
-- its activities see only (tenant, handle), so no Temporal history holds the subject. The row is
-- deleted when the erasure succeeds, or by the retention purge below.
CREATE TABLE erasure_requests (
  tenant_id   text        NOT NULL,
  handle      text        NOT NULL CHECK (handle ~ '^[0-9a-f]{32}$'),
  user_id     text        NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL DEFAULT now() + interval '7 days',
  PRIMARY KEY (tenant_id, handle)
);

-- The working set (the subject's words) lives no longer than its request: a failed or abandoned
-- erasure keeps it for a re-run for 7 days, then the purge deletes it.
ALTER TABLE erasure_work ADD COLUMN expires_at timestamptz NOT NULL DEFAULT now() + interval '7 days';

-- The per-tenant lock: one lease row per tenant. An erasure holds it (holder, expires_at) while
-- it runs; commits, approvals, rollbacks and reindex writes of the tenant check it under the
-- tenant write lock and fail with TenantLocked. A lease, not a session lock, because an erasure
-- spans many activities and workers: a crashed or terminated erasure stops renewing it and the
-- lease expires. `epoch` counts erasure starts and ends; every run records the epoch it started
-- in, and a run whose epoch is no longer current sampled records an erasure may have removed, so
-- it may not commit or be approved (RunFencedByErasure).
CREATE TABLE tenant_locks (
  tenant_id   text        PRIMARY KEY,
  holder      text,
  purpose     text,
  expires_at  timestamptz,
  epoch       bigint      NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE runs ADD COLUMN erasure_epoch bigint NOT NULL DEFAULT 0;

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['erasure_requests', 'tenant_locks'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format(
      'CREATE POLICY tenant_isolation ON %I USING (tenant_id = current_setting(''app.tenant_id'', true)) '
      'WITH CHECK (tenant_id = current_setting(''app.tenant_id'', true))', t);
  END LOOP;
END
$$;

GRANT SELECT, INSERT, DELETE ON erasure_requests TO nocturne_app;
GRANT UPDATE (expires_at) ON erasure_work TO nocturne_app;
GRANT SELECT, INSERT, UPDATE ON tenant_locks TO nocturne_app;

-- Deletes the tenant's expired erasure requests and working sets. Runs as the caller (under
-- row-level security) from the triggers below, so every consolidation run and every new
-- erasure request of a tenant enforces the retention, whatever code path wrote the row.
CREATE FUNCTION nocturne_purge_expired_erasures() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM erasure_work WHERE tenant_id = NEW.tenant_id AND expires_at <= now();
  DELETE FROM erasure_requests WHERE tenant_id = NEW.tenant_id AND expires_at <= now();
  RETURN NULL;
END
$$;

CREATE TRIGGER runs_purge_expired_erasures AFTER INSERT ON runs
  FOR EACH ROW EXECUTE FUNCTION nocturne_purge_expired_erasures();
CREATE TRIGGER erasure_requests_purge_expired AFTER INSERT ON erasure_requests
  FOR EACH ROW EXECUTE FUNCTION nocturne_purge_expired_erasures();

-- A run records the erasure epoch of its tenant when it starts (before it samples anything).
CREATE FUNCTION nocturne_stamp_run_epoch() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.erasure_epoch := coalesce((SELECT l.epoch FROM tenant_locks l WHERE l.tenant_id = NEW.tenant_id), 0);
  RETURN NEW;
END
$$;

CREATE TRIGGER runs_stamp_epoch BEFORE INSERT ON runs
  FOR EACH ROW EXECUTE FUNCTION nocturne_stamp_run_epoch();

-- Expired working sets no longer count as an erasure in progress.
CREATE OR REPLACE FUNCTION nocturne_require_erasure_needles(p_tenant text, p_needles text[]) RETURNS void
LANGUAGE plpgsql STABLE AS $$
DECLARE
  stray text;
BEGIN
  SELECT x INTO stray FROM unnest(p_needles) x
   WHERE x <> '' AND NOT EXISTS (
     SELECT 1 FROM erasure_work w
      WHERE w.tenant_id = p_tenant AND w.kind = 'needle' AND w.value = x AND w.expires_at > now())
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'a string to scrub is not part of an erasure in progress' USING ERRCODE = 'insufficient_privilege';
  END IF;
END
$$;

-- As in 0012, and the vectors an abandoned rebuild left beside them (embedding_next) too.
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
  SELECT count(*) FILTER (WHERE v.embedding IS NOT NULL OR v.embedding_next IS NOT NULL) INTO embeddings
    FROM note_versions v WHERE v.tenant_id = t AND v.note_id = ANY(p_note_ids);
  UPDATE note_versions v
     SET claim = '[erased]', evidence = '[]'::jsonb, scope_key = 'erased', embedding = NULL, embedding_next = NULL,
         structure = NULL
   WHERE v.tenant_id = t AND v.note_id = ANY(p_note_ids)
     AND (v.claim <> '[erased]' OR v.evidence <> '[]'::jsonb OR v.scope_key <> 'erased' OR v.embedding IS NOT NULL
          OR v.embedding_next IS NOT NULL OR v.structure IS NOT NULL);
  GET DIAGNOSTICS versions = ROW_COUNT;
  DELETE FROM memory_usage u WHERE u.tenant_id = t AND u.note_id = ANY(p_note_ids);
  GET DIAGNOSTICS usage_rows = ROW_COUNT;
  RETURN NEXT;
END
$$;

-- Everything else the verification scan checks, driven by the erasure's own working set (read
-- here, never taken from the caller): a session or task id that contains the user id makes
-- run_episodes and memory_usage rows match, so they are deleted; run work citing the subject's
-- records is deleted too (a fenced run cannot use it, and it names erased records); feedback
-- rows that cite the subject's records or belong to erased notes are deleted; and older versions
-- of notes that stay (their current version no longer cites the subject) are scrubbed when they
-- cite the subject's records or quote the subject's words, as erased notes' versions are.
CREATE FUNCTION nocturne_scrub_subject(p_subject text)
RETURNS TABLE (episodes integer, usage_rows integer, feedback integer, versions integer)
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
  t text := nocturne_current_tenant();
  needles text[];
  records text[];
BEGIN
  SELECT coalesce(array_agg(w.value) FILTER (WHERE w.kind = 'needle' AND w.value <> ''), '{}'),
         coalesce(array_agg(w.value) FILTER (WHERE w.kind = 'record'), '{}')
    INTO needles, records
    FROM erasure_work w WHERE w.tenant_id = t AND w.subject = p_subject AND w.expires_at > now();
  IF cardinality(needles) = 0 THEN
    RAISE EXCEPTION 'no erasure in progress for this subject' USING ERRCODE = 'insufficient_privilege';
  END IF;
  DELETE FROM run_episodes r
   WHERE r.tenant_id = t
     AND (EXISTS (SELECT 1 FROM unnest(needles) x WHERE strpos(r.episode_key || r.parts::text, x) > 0)
          OR EXISTS (SELECT 1 FROM unnest(records) x WHERE strpos(r.parts::text, x) > 0));
  GET DIAGNOSTICS episodes = ROW_COUNT;
  -- Stored operations and rejections citing erased records: no run may apply them any more.
  DELETE FROM run_batches r
   WHERE r.tenant_id = t AND EXISTS (SELECT 1 FROM unnest(records) x WHERE strpos(r.ops::text, x) > 0);
  DELETE FROM run_rejections r
   WHERE r.tenant_id = t AND EXISTS (SELECT 1 FROM unnest(records) x WHERE strpos(r.proposal::text, x) > 0);
  DELETE FROM memory_usage u
   WHERE u.tenant_id = t AND EXISTS (SELECT 1 FROM unnest(needles) x WHERE strpos(u.task_id, x) > 0);
  GET DIAGNOSTICS usage_rows = ROW_COUNT;
  DELETE FROM note_feedback f
   WHERE f.tenant_id = t
     AND (EXISTS (SELECT 1 FROM unnest(needles || records) x WHERE strpos(f.evidence::text || f.feedback_id, x) > 0)
          OR EXISTS (SELECT 1 FROM notes n WHERE n.tenant_id = t AND n.note_id = f.note_id AND n.status = 'erased'));
  GET DIAGNOSTICS feedback = ROW_COUNT;
  UPDATE note_versions v
     SET claim = '[erased]', evidence = '[]'::jsonb, scope_key = 'erased', embedding = NULL, embedding_next = NULL,
         structure = NULL
    FROM notes n
   WHERE n.tenant_id = t AND v.tenant_id = t AND n.note_id = v.note_id AND v.version <> n.current_version
     AND (EXISTS (SELECT 1 FROM jsonb_array_elements(v.evidence) e WHERE e->>'recordId' = ANY(records))
          OR EXISTS (SELECT 1 FROM unnest(needles) x
                      WHERE strpos(v.claim || ' ' || v.scope_key || ' ' || coalesce(v.structure::text, ''), x) > 0));
  GET DIAGNOSTICS versions = ROW_COUNT;
  RETURN NEXT;
END
$$;

DO $$
DECLARE
  f text;
BEGIN
  FOREACH f IN ARRAY ARRAY['nocturne_require_erasure_needles(text, text[])', 'nocturne_scrub_erased_notes(text[])',
                           'nocturne_scrub_subject(text)'] LOOP
    EXECUTE format('ALTER FUNCTION %s SET search_path = %I, public, pg_temp', f, current_schema());
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
  END LOOP;
  EXECUTE 'GRANT EXECUTE ON FUNCTION nocturne_scrub_erased_notes(text[]) TO nocturne_app';
  EXECUTE 'GRANT EXECUTE ON FUNCTION nocturne_scrub_subject(text) TO nocturne_app';
END
$$;

-- Down Migration

DROP FUNCTION nocturne_scrub_subject(text);
DROP TRIGGER runs_stamp_epoch ON runs;
DROP TRIGGER runs_purge_expired_erasures ON runs;
DROP FUNCTION nocturne_stamp_run_epoch();
DROP TABLE erasure_requests;
DROP FUNCTION nocturne_purge_expired_erasures();
ALTER TABLE runs DROP COLUMN erasure_epoch;
DROP TABLE tenant_locks;
ALTER TABLE erasure_work DROP COLUMN expires_at;
