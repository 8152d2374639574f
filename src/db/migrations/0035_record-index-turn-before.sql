-- Up Migration

-- The record whose words a record's vector takes in besides its own (the turn said before it in
-- its session, policies/record-recall.ts `embeddedText`), null when it takes in none. Erasure
-- finds by it the vectors and cache entries made with an erased record's words.
ALTER TABLE record_index ADD COLUMN context_record_id text;

-- Down Migration

ALTER TABLE record_index DROP COLUMN context_record_id;
