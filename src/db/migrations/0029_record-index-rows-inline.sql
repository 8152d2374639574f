-- Up Migration

-- A record's row keeps its full-text vector (and its text and told text) in the row. With the
-- vector kept in the row (0028), a row of about 2.4 kB (a 1.5 kB vector, a 360-byte full-text
-- vector, the text and the told text) is over PostgreSQL's default target of about 2 kB, so the
-- full-text vector was moved to the TOAST table, and the record channel's BM25 statement fetched
-- it through the TOAST index for every row it looks at: once per query word to count the word's
-- records, once for the pool's mean length, once to sum the term weights. A target of a whole
-- page keeps any row that fits one page whole. LoCoMo conversations 1 and 3 (392 questions), the
-- statement's mean 37-39 ms -> 23-24 ms, p95 59-62 -> 33-35 ms (docs/EVALUATION.md).
--
-- A setting, no rewrite: rows written from now on are kept whole; rows written before keep their
-- values out of line until they are written again (`nocturne index records --tenant <t>
-- --rebuild`, or `VACUUM FULL record_index`).
ALTER TABLE record_index SET (toast_tuple_target = 8160);

-- Down Migration

ALTER TABLE record_index RESET (toast_tuple_target);
