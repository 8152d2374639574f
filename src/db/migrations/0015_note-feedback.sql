-- Up Migration

-- What agents said about recalled notes (POST /v1/feedback): a note helped, or was wrong. The
-- words, the task and the user stay in the archived `feedback` record this row cites, so erasure
-- finds them there; the row holds only what consolidation needs to act on it.
CREATE TABLE note_feedback (
  tenant_id    text        NOT NULL,
  feedback_id  text        NOT NULL,
  note_id      text        NOT NULL,
  version      integer     NOT NULL CHECK (version >= 1),
  verdict      text        NOT NULL CHECK (verdict IN ('helped', 'wrong')),
  evidence     jsonb       NOT NULL,
  at           timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, feedback_id)
);

CREATE INDEX note_feedback_note_idx ON note_feedback (tenant_id, note_id, at);

ALTER TABLE note_feedback ENABLE ROW LEVEL SECURITY;
ALTER TABLE note_feedback FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON note_feedback
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

GRANT SELECT, INSERT ON note_feedback TO nocturne_app;

-- Down Migration

DROP TABLE note_feedback;
