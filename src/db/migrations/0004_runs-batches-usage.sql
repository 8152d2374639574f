-- Up Migration

CREATE TABLE runs (
  tenant_id    text        NOT NULL,
  run_id       text        NOT NULL,
  workflow_id  text        NOT NULL,
  trigger      text        NOT NULL CHECK (trigger IN ('schedule', 'conflict', 'manual', 'backfill')),
  budget       jsonb       NOT NULL,
  spent        jsonb       NOT NULL,
  status       text        NOT NULL,
  counts       jsonb       NOT NULL,
  started_at   timestamptz NOT NULL,
  finished_at  timestamptz,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, run_id)
);

-- Idempotency keys of committed note batches: a retried activity finds its key and gets the
-- stored result back instead of writing a second set of versions and audit entries.
CREATE TABLE applied_batches (
  tenant_id   text        NOT NULL,
  run_id      text        NOT NULL,
  batch_no    integer     NOT NULL CHECK (batch_no >= 0),
  ops_hash    text        NOT NULL,
  result      jsonb       NOT NULL,
  applied_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, run_id, batch_no)
);

-- What recall returned for which task. Natural key so a retried recall log is a no-op.
CREATE TABLE memory_usage (
  tenant_id  text             NOT NULL,
  task_id    text             NOT NULL,
  note_id    text             NOT NULL,
  version    integer          NOT NULL,
  rank       integer          NOT NULL CHECK (rank >= 1),
  score      double precision NOT NULL,
  at         timestamptz      NOT NULL,
  PRIMARY KEY (tenant_id, task_id, note_id, version),
  FOREIGN KEY (tenant_id, note_id, version) REFERENCES note_versions (tenant_id, note_id, version)
);

CREATE INDEX memory_usage_note_idx ON memory_usage (tenant_id, note_id, version);
