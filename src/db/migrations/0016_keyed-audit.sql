-- Up Migration

-- Keyed audit entries (src/db/audit/keyed.ts). A keyed entry's hash is an HMAC under a key the
-- database never sees; key_id names that key and version_digest is the sha256 of the claim,
-- structure and evidence of the version it records. Entries written before (key_id NULL) are
-- legacy sha256 entries and verify as such.
ALTER TABLE audit_log ADD COLUMN key_id text;
ALTER TABLE audit_log ADD COLUMN version_digest text CHECK (version_digest IS NULL OR octet_length(version_digest) = 64);

-- Redaction no longer re-links the chain. A keyed entry's hash covers the digest of its reason,
-- which the redacted reason '[erased sha256:<digest>]' still states, so it stays valid as it is.
-- A legacy entry keeps its hash too, and audit_redactions records the hash and the digest of the
-- reason it replaced, which is what verification accepts in place of the reason. Only strings
-- of an erasure in progress are accepted (as in 0012).
CREATE OR REPLACE FUNCTION nocturne_redact_audit(p_subject text, p_needles text[])
RETURNS TABLE (redacted integer, relinked integer)
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
  t text := nocturne_current_tenant();
  e audit_log%ROWTYPE;
  digest text;
BEGIN
  PERFORM nocturne_require_erasure_needles(t, p_needles);
  IF NOT EXISTS (SELECT 1 FROM erasure_work w WHERE w.tenant_id = t AND w.subject = p_subject) THEN
    RAISE EXCEPTION 'no erasure in progress for this subject' USING ERRCODE = 'insufficient_privilege';
  END IF;
  redacted := 0;
  relinked := 0;
  FOR e IN SELECT * FROM audit_log a
            WHERE a.tenant_id = t
              AND EXISTS (SELECT 1 FROM unnest(p_needles) x WHERE x <> '' AND strpos(a.reason, x) > 0)
            ORDER BY a.seq FOR UPDATE LOOP
    digest := encode(sha256(convert_to(e.reason, 'UTF8')), 'hex');
    INSERT INTO audit_redactions (tenant_id, seq, subject, original_hash, original_prev, reason_sha256)
    VALUES (t, e.seq, p_subject, e.hash, e.prev_hash, digest);
    UPDATE audit_log SET reason = '[erased sha256:' || digest || ']' WHERE tenant_id = t AND seq = e.seq;
    redacted := redacted + 1;
  END LOOP;
  RETURN NEXT;
END
$$;

DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION nocturne_redact_audit(text, text[]) SET search_path = %I, public, pg_temp', current_schema());
END
$$;
