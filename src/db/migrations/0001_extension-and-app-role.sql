-- Up Migration

-- pgvector lives in public so that every schema (tests use one per run) resolves `vector`.
CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;

-- The role every tenant transaction switches to (SET LOCAL ROLE). NOBYPASSRLS is the point:
-- tenant isolation must hold even when a query forgets its WHERE clause. Roles are cluster-wide,
-- so a second database or schema finds it already there; a concurrent creator may win the race.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'nocturne_app') THEN
    CREATE ROLE nocturne_app NOLOGIN NOBYPASSRLS;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;

-- A non-superuser owner must be a member to SET ROLE; a superuser may always switch.
DO $$
BEGIN
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
     AND NOT pg_has_role(current_user, 'nocturne_app', 'MEMBER') THEN
    EXECUTE format('GRANT nocturne_app TO %I', current_user);
  END IF;
END
$$;

DO $$
BEGIN
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO nocturne_app', current_schema());
END
$$;
