-- Up Migration

-- Which model produced each stored vector. A version that keeps its claim copies the previous
-- version's vectors (reinforce, supersede, rollback); with the stamp the copy keeps the model it
-- came from, so a vector is never taken for another model's: a run's vector step re-embeds a
-- copy whose model is not the worker's, and a rebuild's switch re-embeds every current version
-- that has no vector of the new model (written while the rebuild ran). NULL: written before
-- this migration, or given explicitly by the caller (model unknown, so treated as another one).
ALTER TABLE note_versions ADD COLUMN embedding_model text;
ALTER TABLE note_versions ADD COLUMN embedding_next_model text;
GRANT UPDATE (embedding_model, embedding_next_model) ON note_versions TO nocturne_app;

-- An erasure records the sha256 of every claim it scrubs (`claim_hash`), so it can delete the
-- cached vectors of those claims (the embedding cache is keyed by that hash) and its
-- verification scan can check that none is left once the claims themselves are gone.
ALTER TABLE erasure_work DROP CONSTRAINT erasure_work_kind_check;
ALTER TABLE erasure_work ADD CONSTRAINT erasure_work_kind_check CHECK (kind IN ('record', 'needle', 'claim_hash'));

-- Down Migration

DELETE FROM erasure_work WHERE kind = 'claim_hash';
ALTER TABLE erasure_work DROP CONSTRAINT erasure_work_kind_check;
ALTER TABLE erasure_work ADD CONSTRAINT erasure_work_kind_check CHECK (kind IN ('record', 'needle'));
ALTER TABLE note_versions DROP COLUMN embedding_next_model;
ALTER TABLE note_versions DROP COLUMN embedding_model;
