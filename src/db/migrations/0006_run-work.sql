-- Up Migration

-- The sampled episodes of a run, numbered and batched. Workflows pass (run id, batch no);
-- activities read the episodes from here, so no record list ever crosses workflow history.
CREATE TABLE run_episodes (
  tenant_id    text             NOT NULL,
  run_id       text             NOT NULL,
  seq          integer          NOT NULL CHECK (seq >= 0),
  batch_no     integer          NOT NULL CHECK (batch_no >= 0),
  episode_key  text             NOT NULL,
  parts        jsonb            NOT NULL,
  weight       double precision NOT NULL,
  PRIMARY KEY (tenant_id, run_id, seq)
);
CREATE INDEX run_episodes_batch_idx ON run_episodes (tenant_id, run_id, batch_no);

-- Validated operations of a batch: written by replay, applied by commit. A retried replay
-- finds its row and returns the same summary instead of proposing (and numbering) again.
CREATE TABLE run_batches (
  tenant_id   text        NOT NULL,
  run_id      text        NOT NULL,
  batch_no    integer     NOT NULL CHECK (batch_no >= 0),
  ops         jsonb       NOT NULL,
  summary     jsonb       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, run_id, batch_no)
);

-- Proposals that validation rejected, with the rule: what an operator reads to trust a run.
CREATE TABLE run_rejections (
  tenant_id  text    NOT NULL,
  run_id     text    NOT NULL,
  batch_no   integer NOT NULL,
  seq        integer NOT NULL,
  rule       text    NOT NULL,
  detail     text    NOT NULL,
  proposal   jsonb   NOT NULL,
  PRIMARY KEY (tenant_id, run_id, batch_no, seq)
);

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['run_episodes', 'run_batches', 'run_rejections'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format(
      'CREATE POLICY tenant_isolation ON %I USING (tenant_id = current_setting(''app.tenant_id'', true)) '
      'WITH CHECK (tenant_id = current_setting(''app.tenant_id'', true))', t);
  END LOOP;
END
$$;

GRANT SELECT, INSERT ON run_episodes TO nocturne_app;
GRANT SELECT, INSERT ON run_batches TO nocturne_app;
GRANT SELECT, INSERT ON run_rejections TO nocturne_app;

-- Embeddings are a projection of the claim, rebuilt when the model changes: the app may set
-- that one column of a version, and nothing else.
GRANT UPDATE (embedding) ON note_versions TO nocturne_app;
