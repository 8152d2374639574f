import { z } from 'zod';
import type { AuditEntry } from '../contracts/audit.ts';
import type { NoteVersion } from '../contracts/note.ts';
import { auditHash, chainAuditEntries } from './audit/hash.ts';
import { insertAuditEntries, selectAuditHead, selectAuditPage } from './audit/queries.ts';
import type { Db, Queryable } from './db.ts';
import {
  insertVersions,
  lockTenantWrites,
  movePointers,
  selectCurrentVersionsForUpdate,
} from './notes/write-queries.ts';
import { NoteVersionRow, VERSION_COLUMNS } from './notes/version-row.ts';
import { intColumn } from './rows.ts';
import { withTenant } from './tenant.ts';

/**
 * Queries of subject erasure (migration 0007). Each takes `(tx, params)` inside withTenant; the
 * writes that touch immutable tables go through the migration's SECURITY DEFINER functions.
 */

export const ERASED_CLAIM = '[erased]';
export const ERASED_SCOPE_KEY = 'erased';

export async function insertErasureWork(
  tx: Queryable,
  p: { tenantId: string; subject: string; kind: 'record' | 'needle'; values: string[] },
): Promise<void> {
  if (p.values.length === 0) return;
  await tx.query(
    `INSERT INTO erasure_work (tenant_id, subject, kind, value) SELECT $1, $2, $3, x FROM unnest($4::text[]) AS x ON CONFLICT DO NOTHING`,
    [p.tenantId, p.subject, p.kind, p.values],
  );
}

export async function selectErasureWork(
  tx: Queryable,
  p: { subject: string; kind: 'record' | 'needle' },
): Promise<string[]> {
  const { rows } = await tx.query(`SELECT value FROM erasure_work WHERE subject = $1 AND kind = $2 ORDER BY value`, [
    p.subject,
    p.kind,
  ]);
  return rows.map((r) => z.object({ value: z.string() }).parse(r).value);
}

export async function deleteErasureWork(tx: Queryable, p: { subject: string }): Promise<number> {
  const { rowCount } = await tx.query(`DELETE FROM erasure_work WHERE subject = $1`, [p.subject]);
  return rowCount;
}

/**
 * Current versions of the notes erasure must look at: not yet erased, and citing one of the
 * subject's records, scoped to the subject, or with a claim (in any version) that quotes them.
 */
export async function selectNotesTouchingSubject(
  tx: Queryable,
  p: { recordIds: string[]; userId: string; needles: string[] },
): Promise<NoteVersion[]> {
  const { rows } = await tx.query(
    `SELECT ${VERSION_COLUMNS}
       FROM notes n JOIN note_versions v
         ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
      WHERE n.status <> 'erased'
        AND (EXISTS (SELECT 1 FROM jsonb_array_elements(v.evidence) e WHERE e->>'recordId' = ANY($1::text[]))
             OR (v.scope_level = 'user' AND v.scope_key = $2)
             OR EXISTS (SELECT 1 FROM note_versions h, unnest($3::text[]) x
                         WHERE h.tenant_id = n.tenant_id AND h.note_id = n.note_id AND strpos(h.claim || h.scope_key, x) > 0))
      ORDER BY n.note_id`,
    [p.recordIds, p.userId, p.needles],
  );
  return rows.map((r) => NoteVersionRow.parse(r));
}

/** Current versions (not erased) whose evidence cites the given archive object. */
export async function selectNotesCitingObject(tx: Queryable, p: { objectKey: string }): Promise<NoteVersion[]> {
  const { rows } = await tx.query(
    `SELECT ${VERSION_COLUMNS}
       FROM notes n JOIN note_versions v
         ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
      WHERE n.status <> 'erased'
        AND EXISTS (SELECT 1 FROM jsonb_array_elements(v.evidence) e WHERE e->>'objectKey' = $1)
      ORDER BY n.note_id`,
    [p.objectKey],
  );
  return rows.map((r) => NoteVersionRow.parse(r));
}

/**
 * Writes an 'erased' tombstone version of each note (claim, evidence and scope key scrubbed)
 * with one 'erase' audit entry each, in one transaction under the tenant write lock. Notes
 * already erased are skipped, which makes a retry write nothing twice. Returns the note ids
 * erased now.
 */
export async function writeErasedVersions(
  db: Db,
  p: { tenantId: string; noteIds: string[]; actor: string; reason: string; at: string },
): Promise<string[]> {
  if (p.noteIds.length === 0) return [];
  return withTenant(db, p.tenantId, async (tx) => {
    await lockTenantWrites(tx, p);
    const current = (await selectCurrentVersionsForUpdate(tx, p)).filter((v) => v.status !== 'erased');
    if (current.length === 0) return [];
    const versions = current.map((v) => ({
      ...v,
      version: v.version + 1,
      status: 'erased' as const,
      scope: { level: v.scope.level, key: ERASED_SCOPE_KEY },
      claim: ERASED_CLAIM,
      evidence: [],
      supersededBy: null,
      createdByRun: p.actor,
      embedding: null,
    }));
    await insertVersions(tx, { tenantId: p.tenantId, at: p.at, versions });
    const moved = await movePointers(tx, {
      tenantId: p.tenantId,
      at: p.at,
      pointers: current.map((v) => ({
        noteId: v.noteId,
        version: v.version + 1,
        status: 'erased' as const,
        startVersion: v.version,
      })),
    });
    if (moved !== current.length)
      throw new Error(`tenant ${p.tenantId}: a note pointer moved under the erasure's lock`);
    const audit = chainAuditEntries(
      await selectAuditHead(tx, p),
      current.map((v) => ({
        tenantId: p.tenantId,
        at: p.at,
        actor: p.actor,
        action: 'erase' as const,
        noteId: v.noteId,
        fromVersion: v.version,
        toVersion: v.version + 1,
        reason: p.reason,
      })),
    );
    await insertAuditEntries(tx, { tenantId: p.tenantId, entries: audit });
    return current.map((v) => v.noteId);
  });
}

/** Notes an erasure (its actor) erased, and notes it re-validated: the report, retry-proof. */
export async function selectErasureOutcome(
  tx: Queryable,
  p: { actor: string },
): Promise<{ erased: string[]; revalidated: string[] }> {
  const { rows } = await tx.query(
    `SELECT n.note_id, n.status, v.created_by_run AS run
       FROM notes n JOIN note_versions v ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id
      WHERE v.created_by_run = $1 OR v.created_by_run LIKE $2
      GROUP BY n.note_id, n.status, v.created_by_run
      ORDER BY n.note_id`,
    [p.actor, `${p.actor}/revalidate/%`],
  );
  const parsed = rows.map((r) => z.object({ note_id: z.string(), status: z.string(), run: z.string() }).parse(r));
  return {
    erased: [...new Set(parsed.filter((r) => r.run === p.actor && r.status === 'erased').map((r) => r.note_id))],
    revalidated: [...new Set(parsed.filter((r) => r.run !== p.actor && r.status !== 'erased').map((r) => r.note_id))],
  };
}

export async function selectErasedNoteIds(tx: Queryable): Promise<string[]> {
  const { rows } = await tx.query(`SELECT note_id FROM notes WHERE status = 'erased' ORDER BY note_id`);
  return rows.map((r) => z.object({ note_id: z.string() }).parse(r).note_id);
}

const ScrubRow = z.object({ versions: intColumn, embeddings: intColumn, usage_rows: intColumn });

export async function scrubErasedNotes(
  tx: Queryable,
  p: { noteIds: string[] },
): Promise<{ versions: number; embeddings: number; usageRows: number }> {
  const { rows } = await tx.query(`SELECT * FROM nocturne_scrub_erased_notes($1::text[])`, [p.noteIds]);
  const r = ScrubRow.parse(rows[0]);
  return { versions: r.versions, embeddings: r.embeddings, usageRows: r.usage_rows };
}

export async function scrubRunWork(tx: Queryable, p: { needles: string[] }): Promise<number> {
  const { rows } = await tx.query(`SELECT nocturne_scrub_run_work($1::text[]) AS n`, [p.needles]);
  return z.object({ n: intColumn }).parse(rows[0]).n;
}

/** The reason an audit entry carries once erasure has redacted it. */
export function redactedReason(sha256Hex: string): string {
  return `[erased sha256:${sha256Hex}]`;
}

/**
 * Replaces every audit reason that contains one of `needles` by its sha256 and re-links the
 * chain from the first redacted entry on (hashes recomputed with the canonical auditHash), so
 * verifyAuditChain still passes. Original hashes are kept in audit_redactions. Idempotent: a
 * second call finds nothing to redact.
 */
export async function redactAudit(
  db: Db,
  p: { tenantId: string; subject: string; needles: string[]; digest: (text: string) => string },
): Promise<{ redacted: number; relinked: number }> {
  const needles = p.needles.filter((n) => n.length > 0);
  if (needles.length === 0) return { redacted: 0, relinked: 0 };
  return withTenant(db, p.tenantId, async (tx) => {
    await lockTenantWrites(tx, p);
    const all: AuditEntry[] = [];
    for (let after = 0; ;) {
      const page = await selectAuditPage(tx, { tenantId: p.tenantId, afterSeq: after, limit: 1000 });
      all.push(...page);
      if (page.length < 1000) break;
      after = page.at(-1)?.seq ?? after;
    }
    const first = all.findIndex((e) => needles.some((n) => e.reason.includes(n)));
    if (first === -1) return { redacted: 0, relinked: 0 };
    let prevHash = all[first - 1]?.hash ?? all[first]?.prevHash ?? '';
    let redacted = 0;
    const rewritten: Array<{ seq: number; reason: string; prevHash: string; hash: string }> = [];
    for (const e of all.slice(first)) {
      const hit = needles.some((n) => e.reason.includes(n));
      if (hit) redacted += 1;
      const reason = hit ? redactedReason(p.digest(e.reason)) : e.reason;
      const hash = auditHash({ ...e, reason, prevHash });
      rewritten.push({ seq: e.seq, reason, prevHash, hash });
      prevHash = hash;
    }
    let relinked = 0;
    for (let i = 0; i < rewritten.length; i += 1000) {
      const { rows } = await tx.query(`SELECT nocturne_redact_audit($1, $2::jsonb) AS n`, [
        p.subject,
        JSON.stringify(rewritten.slice(i, i + 1000)),
      ]);
      relinked += z.object({ n: intColumn }).parse(rows[0]).n;
    }
    return { redacted, relinked };
  });
}

export interface StoreFinding {
  store: 'note_versions' | 'audit_log' | 'memory_usage' | 'embeddings' | 'run_work' | 'runs';
  count: number;
}

const Count = z.object({ n: intColumn });
const count = async (tx: Queryable, sql: string, params: unknown[]): Promise<number> =>
  Count.parse((await tx.query(sql, params)).rows[0]).n;

/**
 * The database half of the verification scan: rows of the tenant in which any of the subject's
 * strings occur, usage rows or embeddings left on erased notes. Returns only non-zero findings.
 */
export async function scanDatabaseForSubject(tx: Queryable, p: { needles: string[] }): Promise<StoreFinding[]> {
  const any = (expr: string) => `EXISTS (SELECT 1 FROM unnest($1::text[]) x WHERE x <> '' AND strpos(${expr}, x) > 0)`;
  const n = [p.needles];
  const findings: StoreFinding[] = [
    {
      store: 'note_versions',
      count: await count(
        tx,
        `SELECT count(*) AS n FROM note_versions WHERE ${any(`claim || ' ' || scope_key || ' ' || evidence::text || ' ' || coalesce(created_by_run, '')`)}`,
        n,
      ),
    },
    {
      store: 'audit_log',
      count: await count(
        tx,
        `SELECT count(*) AS n FROM audit_log WHERE ${any(`reason || ' ' || actor || ' ' || note_id`)}`,
        n,
      ),
    },
    {
      store: 'memory_usage',
      count: await count(
        tx,
        `SELECT count(*) AS n FROM memory_usage u WHERE ${any('u.task_id')} OR u.note_id IN (SELECT note_id FROM notes WHERE status = 'erased')`,
        n,
      ),
    },
    {
      store: 'embeddings',
      count: await count(
        tx,
        `SELECT count(*) AS n FROM note_versions WHERE embedding IS NOT NULL AND note_id IN (SELECT note_id FROM notes WHERE status = 'erased')`,
        [],
      ),
    },
    {
      store: 'run_work',
      count:
        (await count(tx, `SELECT count(*) AS n FROM run_batches WHERE ${any(`ops::text || summary::text`)}`, n)) +
        (await count(tx, `SELECT count(*) AS n FROM run_rejections WHERE ${any(`detail || proposal::text`)}`, n)) +
        (await count(tx, `SELECT count(*) AS n FROM run_episodes WHERE ${any(`episode_key || parts::text`)}`, n)),
    },
    {
      store: 'runs',
      count: await count(tx, `SELECT count(*) AS n FROM runs WHERE ${any(`run_id || workflow_id`)}`, n),
    },
  ];
  return findings.filter((f) => f.count > 0);
}
