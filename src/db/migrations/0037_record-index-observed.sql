-- Up Migration

-- A tenant's records by the time they were observed: recall reads the records said on a day or
-- in a month a question names (src/recall/record-queries.ts `recordTimeSql`), a range of this
-- index instead of a scan of the tenant's records.
CREATE INDEX record_index_observed_idx ON record_index (tenant_id, observed_at);

-- Down Migration

DROP INDEX record_index_observed_idx;
