-- Up Migration

-- The string a record is embedded and word-matched as: its text told as a note would tell it
-- (third person, absolute times: `embeddedText` in policies/record-recall.ts). Recall ranks every
-- candidate record by it; computed once here at index time instead of per candidate per query.
-- NULL on rows indexed before this migration: recall computes it from speaker, text and time
-- until the next `nocturne index records --rebuild` writes it. Derived from the redacted text,
-- so erasure deletes it with the row and its scan searches it too.
ALTER TABLE record_index ADD COLUMN told text;

-- Down Migration

ALTER TABLE record_index DROP COLUMN told;
