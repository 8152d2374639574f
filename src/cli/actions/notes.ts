import { loadConfig } from '../../config.ts';
import type { AuditEntry } from '../../contracts/audit.ts';
import { TenantId } from '../../contracts/ids.ts';
import { NOTE_STATUSES, type EvidenceRef, type NoteStatus, type NoteVersion } from '../../contracts/note.ts';
import { diffVersions, getNote, getNoteHistory, listNotes, type VersionDiff } from '../../db/index.ts';
import { withDb } from '../../runtime.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine, table } from '../output.ts';

/** Claims are cut to this width in the list table; --json and `show` print them whole. */
const CLAIM_WIDTH = 72;

export interface ListOptions {
  tenant: string;
  status?: string;
  limit: string;
  cursor?: string;
  json?: boolean;
}

export interface ShowOptions {
  tenant: string;
  history?: boolean;
  json?: boolean;
}

/** `nocturne notes list` */
export async function listNotesCommand(opts: ListOptions): Promise<void> {
  const tenantId = parseTenant(opts.tenant);
  const status = parseStatus(opts.status);
  const limit = parseLimit(opts.limit);
  await withDb(loadConfig(), async (db) => {
    const page = await listNotes(db, { tenantId, status, limit, cursor: opts.cursor });
    if (opts.json) return printJson({ tenantId, ...page });
    printList(page.notes, page.nextCursor);
  });
}

/** `nocturne notes show` */
export async function showNoteCommand(noteId: string, opts: ShowOptions): Promise<void> {
  const tenantId = parseTenant(opts.tenant);
  await withDb(loadConfig(), async (db) => {
    const current = await getNote(db, { tenantId, noteId });
    if (!current) throw new Error(`note ${noteId} not found for tenant ${tenantId}`);
    if (!opts.history) {
      if (opts.json) return printJson({ note: current });
      return printCurrent(current);
    }
    const history = await getNoteHistory(db, { tenantId, noteId });
    if (opts.json)
      return printJson({
        note: current,
        versions: history.versions,
        audit: history.audit,
        diffs: diffVersions(history.versions),
      });
    printHistory(current, diffVersions(history.versions), history.audit);
  });
}

function parseTenant(value: string): string {
  const parsed = TenantId.safeParse(value);
  if (!parsed.success) throw new UsageError(`--tenant: ${parsed.error.issues[0]?.message ?? 'invalid tenant id'}`);
  return parsed.data;
}

function parseStatus(value: string | undefined): NoteStatus | undefined {
  if (value === undefined) return undefined;
  if (!(NOTE_STATUSES as readonly string[]).includes(value))
    throw new UsageError(`--status: expected one of ${NOTE_STATUSES.join(', ')}, got ${JSON.stringify(value)}`);
  return value as NoteStatus;
}

function parseLimit(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 1000)
    throw new UsageError(`--limit: expected an integer from 1 to 1000, got ${JSON.stringify(value)}`);
  return n;
}

const cut = (s: string, width: number): string => (s.length > width ? `${s.slice(0, width - 1)}…` : s);
const show = (v: unknown): string =>
  v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v);
const scopeText = (n: NoteVersion): string => `${n.scope.level}:${n.scope.key}`;
const refText = (r: EvidenceRef): string =>
  `${r.recordId} ${r.objectKey}:${r.line} sha256:${r.contentHash.slice(0, 12)}`;

function printList(notes: NoteVersion[], nextCursor: string | null): void {
  if (notes.length === 0) return printLine('no notes');
  printLine(
    table(
      ['NOTE', 'VER', 'STATUS', 'KIND', 'SCOPE', 'CONF', 'CLAIM'],
      notes.map((n) => [
        n.noteId,
        n.version,
        n.status,
        n.kind,
        scopeText(n),
        n.confidence.toFixed(2),
        cut(n.claim, CLAIM_WIDTH),
      ]),
    ),
  );
  if (nextCursor) printLine(`\nmore: --cursor ${nextCursor}`);
}

function printCurrent(n: NoteVersion): void {
  printLine(`note ${n.noteId}  version ${n.version}  ${n.status}`);
  printLine(`  claim:        ${n.claim}`);
  printLine(`  kind:         ${n.kind}   scope: ${scopeText(n)}   source: ${n.sourceKind}`);
  printLine(`  confidence:   ${n.confidence}   importance: ${n.importance}   sources: ${n.sourceCount}`);
  printLine(`  valid:        ${n.validFrom} → ${n.validUntil ?? 'open'}   last confirmed: ${n.lastConfirmedAt}`);
  if (n.contradictedAt) printLine(`  contradicted: ${n.contradictedAt}`);
  if (n.supersededBy) printLine(`  superseded by ${n.supersededBy}`);
  printLine(`  written by run ${n.createdByRun ?? '—'} at ${n.createdAt}`);
  printLine('  evidence:');
  for (const r of n.evidence) printLine(`    ${refText(r)}`);
}

function printHistory(current: NoteVersion, diffs: VersionDiff[], audit: AuditEntry[]): void {
  printLine(`note ${current.noteId}  current version ${current.version}  ${current.status}`);
  for (const d of diffs) {
    printLine('');
    const entries = audit.filter((a) => a.toVersion === d.version);
    printLine(`version ${d.version}`);
    for (const a of entries) {
      printLine(
        `  audit #${a.seq} ${a.action} by ${a.actor} at ${a.at}${a.reason ? ` — ${a.reason}` : ''}  (hash ${a.hash.slice(0, 12)})`,
      );
    }
    for (const c of d.changes) {
      printLine(
        d.version === diffs[0]?.version
          ? `  ${c.field}: ${show(c.to)}`
          : `  ${c.field}: ${show(c.from)} → ${show(c.to)}`,
      );
    }
    if (d.changes.length === 0) printLine('  (no field changed)');
    for (const r of d.evidenceAdded) printLine(`  + evidence ${refText(r)}`);
    for (const r of d.evidenceRemoved) printLine(`  - evidence ${refText(r)}`);
  }
  const other = audit.filter((a) => a.toVersion === null);
  for (const a of other)
    printLine(`\naudit #${a.seq} ${a.action} by ${a.actor} at ${a.at}${a.reason ? ` — ${a.reason}` : ''}`);
}
