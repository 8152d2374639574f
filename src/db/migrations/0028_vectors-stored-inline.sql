-- Up Migration

-- Vectors are kept in their rows instead of the TOAST table. pgvector's type is stored EXTERNAL
-- by default, so a row larger than about 2 kB (a record's text, its told text, its full-text
-- vector and a 384-dimension vector of 1.5 kB) had its vector moved out of line: an exact scan of
-- a small tenant's records then fetched each vector through the TOAST index (three buffer reads
-- per row). MAIN keeps a vector in the row and moves the other long columns out first; only a row
-- still too large then (vectors of very many dimensions) has its vector moved out, so any row
-- that fitted before still fits. The 50 nearest of a LoCoMo conversation's 336 records, read
-- exactly: 2.2-2.7 ms with the vectors out of line, 0.6 ms with them in the row (docs/EVALUATION.md).
--
-- A setting, no rewrite: rows written from now on keep their vectors in the row. Rows written
-- before keep theirs out of line (the same values, read more slowly) until they are written
-- again: `nocturne index records --tenant <t> --rebuild` for the record index, a reindex for notes.
ALTER TABLE record_index ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE note_recall ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE note_versions ALTER COLUMN embedding SET STORAGE MAIN;

-- Down Migration

ALTER TABLE record_index ALTER COLUMN embedding SET STORAGE EXTERNAL;
ALTER TABLE note_recall ALTER COLUMN embedding SET STORAGE EXTERNAL;
ALTER TABLE note_versions ALTER COLUMN embedding SET STORAGE EXTERNAL;
