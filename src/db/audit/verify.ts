import type { AuditEntry } from '../../contracts/audit.ts';
import type { NoteVersion } from '../../contracts/note.ts';
import { auditKeyOf, type Db, type Queryable } from '../db.ts';
import { ERASED_CLAIM } from '../erasure/queries.ts';
import { selectVersions } from '../notes/write-queries.ts';
import { withTenant } from '../tenant.ts';
import { auditHash, GENESIS_HASH } from './hash.ts';
import { type AuditKey, keyedAuditHash, reasonDigest, versionDigest } from './keyed.ts';
import { selectAuditPage, selectRedactions } from './queries.ts';

export interface AuditChainReport {
  ok: boolean;
  /** Entries verified, in order, before the first break (all of them when ok). */
  entries: number;
  /** Of those: keyed (HMAC) entries, and legacy (unkeyed sha256) ones, weaker by nature. */
  keyed: number;
  legacy: number;
  /** Legacy entries whose reason erasure replaced: accepted on the hash audit_redactions kept. */
  redacted: number;
  /** Keyed entries whose version erasure scrubbed: the digest can no longer be compared. */
  scrubbed: number;
  /** The last verified entry. */
  head: { seq: number; hash: string } | null;
  brokenSeq?: number;
  reason?: string;
}

/** A chain head published outside the database (the archive): the chain must still contain it. */
export interface AuditAnchor {
  seq: number;
  hash: string;
}

const PAGE = 1000;

interface PageContext {
  key: AuditKey | undefined;
  versions: Map<string, NoteVersion>;
  redactions: Map<number, { originalHash: string; reasonSha256: string | null }>;
}

/** Why `entry` does not hold, or undefined; counts what kind of entry it is in `report`. */
function checkEntry(entry: AuditEntry, report: AuditChainReport, ctx: PageContext): string | undefined {
  if (!entry.keyId) {
    if (report.keyed > 0) return 'a legacy (unkeyed) entry follows keyed entries';
    report.legacy += 1;
    if (auditHash(entry) === entry.hash) return undefined;
    const redaction = ctx.redactions.get(entry.seq);
    if (redaction?.originalHash === entry.hash && redaction.reasonSha256 === reasonDigest(entry.reason)) {
      report.redacted += 1;
      return undefined;
    }
    return 'content does not match its hash';
  }
  if (!ctx.key) return 'keyed entries need the audit key (NOCTURNE_AUDIT_KEY) to verify';
  if (entry.keyId !== ctx.key.id) return `signed with key ${entry.keyId}, not the configured key ${ctx.key.id}`;
  const fields = { ...entry, keyId: entry.keyId, versionDigest: entry.versionDigest ?? null };
  if (keyedAuditHash(fields, ctx.key) !== entry.hash) return 'content does not match its keyed hash';
  report.keyed += 1;
  return checkVersion(entry, report, ctx);
}

function checkVersion(entry: AuditEntry, report: AuditChainReport, ctx: PageContext): string | undefined {
  if (entry.toVersion === null || !entry.versionDigest) return undefined;
  const version = ctx.versions.get(`${entry.noteId}#${entry.toVersion}`);
  if (!version) return `version ${entry.toVersion} of note ${entry.noteId} is missing`;
  if (versionDigest(version) === entry.versionDigest) return undefined;
  if (version.claim === ERASED_CLAIM && version.evidence.length === 0) {
    report.scrubbed += 1;
    return undefined;
  }
  return `version ${entry.toVersion} of note ${entry.noteId} no longer has the claim, structure and evidence it was audited with`;
}

async function pageContext(tx: Queryable, tenantId: string, page: AuditEntry[], key?: AuditKey) {
  const keys = page.flatMap((e) =>
    e.keyId && e.toVersion !== null ? [{ noteId: e.noteId, version: e.toVersion }] : [],
  );
  const versions = new Map((await selectVersions(tx, { tenantId, keys })).map((v) => [`${v.noteId}#${v.version}`, v]));
  const seqs = page.filter((e) => !e.keyId).map((e) => e.seq);
  const redactions = new Map((await selectRedactions(tx, { tenantId, seqs })).map((r) => [r.seq, r]));
  return { key, versions, redactions };
}

/**
 * Walks the tenant's chain from seq 1: every seq present, every prevHash the previous hash,
 * every hash recomputed (keyed entries with the store's audit key, including the digest of the
 * version each records), and every anchor (a head published in the archive) still in the chain.
 * Reports the first entry that does not hold.
 */
export async function verifyAuditChain(
  db: Db,
  tenantId: string,
  options: { anchors?: AuditAnchor[] } = {},
): Promise<AuditChainReport> {
  const anchors = new Map((options.anchors ?? []).map((a) => [a.seq, a.hash]));
  const report: AuditChainReport = { ok: true, entries: 0, keyed: 0, legacy: 0, redacted: 0, scrubbed: 0, head: null };
  const broken = (seq: number, reason: string): AuditChainReport => ({ ...report, ok: false, brokenSeq: seq, reason });
  return withTenant(db, tenantId, async (tx) => {
    let prevHash = GENESIS_HASH;
    for (;;) {
      const page = await selectAuditPage(tx, { tenantId, afterSeq: report.entries, limit: PAGE });
      const ctx = await pageContext(tx, tenantId, page, auditKeyOf(db));
      for (const entry of page) {
        const expected = report.entries + 1;
        if (entry.seq !== expected) return broken(expected, `entry ${expected} is missing`);
        if (entry.prevHash !== prevHash) return broken(entry.seq, 'prevHash does not match the previous entry');
        const problem = checkEntry(entry, report, ctx);
        if (problem) return broken(entry.seq, problem);
        const anchored = anchors.get(entry.seq);
        if (anchored !== undefined && anchored !== entry.hash)
          return broken(entry.seq, `entry ${entry.seq} is not the one published as the chain head at ${entry.seq}`);
        prevHash = entry.hash;
        report.entries = entry.seq;
        report.head = { seq: entry.seq, hash: entry.hash };
      }
      if (page.length < PAGE) break;
    }
    const beyond = [...anchors.keys()].filter((seq) => seq > report.entries).sort((a, b) => b - a)[0];
    if (beyond !== undefined)
      return broken(report.entries + 1, `the chain ends at ${report.entries} but a head was published at ${beyond}`);
    return report;
  });
}
