-- Up Migration

-- The full-text index matches words in every script. The database runs without a locale, so
-- to_tsvector lower-cased only A–Z: "Überweisungen" and "Москва" stayed capitalised and no query
-- word (recall lower-cases the question's words) equalled them; and PostgreSQL's parser keeps a
-- run of Chinese or Japanese, written without spaces, as one word ("用户喜欢靠过道的座位"), which
-- no query word equals either. The indexed text is now NFKC-normalised like the question's words,
-- lower-cased by Unicode (the built-in C.UTF-8 collation, whatever the database's locale), and
-- its Han, Hiragana and Katakana characters stand apart, as recall splits the question's
-- (`fullTextQuery` in policies/text.ts names the same code points). Text in Latin letters A–Z
-- indexes as before. The collation and SET EXPRESSION need PostgreSQL 17 (PGlite is 17 too).
ALTER TABLE note_versions ALTER COLUMN fts SET EXPRESSION AS (
  to_tsvector('simple', regexp_replace(lower(normalize(claim, NFKC) COLLATE pg_c_utf8),
    U&'([\3400-\4DBF\4E00-\9FFF\F900-\FAFF\3040-\309F\30A0-\30FF\31F0-\31FF])', ' \1 ', 'g')));

ALTER TABLE record_index ALTER COLUMN fts SET EXPRESSION AS (
  to_tsvector('simple', regexp_replace(lower(normalize(speaker || ' ' || text, NFKC) COLLATE pg_c_utf8),
    U&'([\3400-\4DBF\4E00-\9FFF\F900-\FAFF\3040-\309F\30A0-\30FF\31F0-\31FF])', ' \1 ', 'g')));

-- The recall projection holds a copy of each current version's words: rows whose words changed
-- take them again. FORCE row-level security is lifted for this transaction only, as in 0020, so
-- the owner sees every tenant's rows.
ALTER TABLE note_versions NO FORCE ROW LEVEL SECURITY;
ALTER TABLE note_recall NO FORCE ROW LEVEL SECURITY;
UPDATE note_recall r SET fts = v.fts
  FROM note_versions v
 WHERE v.tenant_id = r.tenant_id AND v.note_id = r.note_id AND v.version = r.version AND r.fts <> v.fts;
ALTER TABLE note_versions FORCE ROW LEVEL SECURITY;
ALTER TABLE note_recall FORCE ROW LEVEL SECURITY;

-- Down Migration

ALTER TABLE note_versions ALTER COLUMN fts SET EXPRESSION AS (to_tsvector('simple', claim));
ALTER TABLE record_index ALTER COLUMN fts SET EXPRESSION AS (to_tsvector('simple', speaker || ' ' || text));
ALTER TABLE note_versions NO FORCE ROW LEVEL SECURITY;
ALTER TABLE note_recall NO FORCE ROW LEVEL SECURITY;
UPDATE note_recall r SET fts = v.fts
  FROM note_versions v
 WHERE v.tenant_id = r.tenant_id AND v.note_id = r.note_id AND v.version = r.version AND r.fts <> v.fts;
ALTER TABLE note_versions FORCE ROW LEVEL SECURITY;
ALTER TABLE note_recall FORCE ROW LEVEL SECURITY;
