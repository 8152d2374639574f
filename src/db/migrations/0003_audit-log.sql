-- Up Migration

-- Append-only, hash-chained per tenant: hash = sha256(canonical entry incl. prev_hash).
-- The app role gets INSERT and SELECT only, so rewriting history needs the owner, and the
-- chain (verifyAuditChain) shows where it was rewritten.
CREATE TABLE audit_log (
  tenant_id     text        NOT NULL,
  seq           bigint      NOT NULL CHECK (seq >= 1),
  at            timestamptz NOT NULL,
  actor         text        NOT NULL,
  action        text        NOT NULL
                CHECK (action IN ('create', 'reinforce', 'revise', 'retire', 'quarantine', 'supersede',
                                  'rollback', 'erase', 'approve', 'reject')),
  note_id       text        NOT NULL,
  from_version  integer,
  to_version    integer,
  reason        text        NOT NULL,
  -- Length checks only: the writer validates hex (AuditEntry), and a regex per row costs a
  -- measurable share of a batch commit.
  prev_hash     text        NOT NULL CHECK (octet_length(prev_hash) = 64),
  hash          text        NOT NULL CHECK (octet_length(hash) = 64),
  PRIMARY KEY (tenant_id, seq)
);

CREATE INDEX audit_log_note_idx ON audit_log (tenant_id, note_id, seq);
