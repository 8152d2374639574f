-- Up Migration

-- The form of a record's vector (policies/record-recall.ts, RECORD_VECTOR_FORM): 1 its told text
-- alone, 2 with the turn said before it (0035). Rows and objects indexed before this migration are
-- marked 1; the indexer names the form it writes, so there is no default. `nocturne index records`
-- reads an object of an older form again and replaces its rows (delete and insert in one
-- transaction: a projection is never edited), the embedding cache sparing any text seen before.
-- A constant default and no CHECK: neither rewrites nor scans the table (only catalog changes).
ALTER TABLE record_index ADD COLUMN vector_form smallint NOT NULL DEFAULT 1;
ALTER TABLE record_index ALTER COLUMN vector_form DROP DEFAULT;
ALTER TABLE record_index_objects ADD COLUMN vector_form smallint NOT NULL DEFAULT 1;
ALTER TABLE record_index_objects ALTER COLUMN vector_form DROP DEFAULT;

-- Down Migration

ALTER TABLE record_index_objects DROP COLUMN vector_form;
ALTER TABLE record_index DROP COLUMN vector_form;
