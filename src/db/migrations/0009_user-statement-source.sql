-- Up Migration

-- Notes learned from what a user said about themselves or their work (a conversation's facts,
-- not a correction or a requirement) carry their own source kind, with a lower starting
-- confidence and a lower conflict rank than a correction.
ALTER TABLE note_versions DROP CONSTRAINT note_versions_source_kind_check;
ALTER TABLE note_versions ADD CONSTRAINT note_versions_source_kind_check
  CHECK (source_kind IN ('user_requirement', 'user_correction', 'user_statement', 'tool_fact', 'approval', 'inference'));

-- Down Migration

ALTER TABLE note_versions DROP CONSTRAINT note_versions_source_kind_check;
ALTER TABLE note_versions ADD CONSTRAINT note_versions_source_kind_check
  CHECK (source_kind IN ('user_requirement', 'user_correction', 'tool_fact', 'approval', 'inference'));
