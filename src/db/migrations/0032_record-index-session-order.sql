-- Up Migration

-- A session's records in the order they were said: recall reads the reply that follows a
-- question it returns (the next record of the question's session, by another speaker), one
-- index probe per question instead of a scan of the tenant's records.
CREATE INDEX record_index_session_idx ON record_index (tenant_id, session_id, observed_at, record_id);

-- Down Migration

DROP INDEX record_index_session_idx;
