import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { CommittedChange } from '../activities/index.ts';
import { CHANGED_NOTES, MAX_CHANGED_NOTE_IDS } from '../src/contracts/search-attributes.ts';
import type { PublishedChanges } from '../src/contracts/workflow-inputs.ts';

/** Changes a run's current details list one by one; the run report (`finishRun`) lists them all. @default 30 */
export const MAX_PUBLISHED_CHANGES = 30;

export interface RunHeading {
  tenantId: string;
  trigger: string;
  runId: string;
  workflowId: string;
}

export const emptyPublished = (): PublishedChanges => ({ total: 0, changes: [], noteIds: [] });

/**
 * Adds a commit's changes to what the run shows the operator: the Temporal UI's current details
 * (Markdown: each change with old → new version, how to read its claim and a ready-to-paste
 * rollback input; claims never travel in history)
 * and, with `searchable`, the changed note ids as a search attribute. Quarantined proposals were
 * never recalled, so they are counted by the run report, not listed here.
 */
export function publishChanges(
  published: PublishedChanges,
  heading: RunHeading,
  fresh: readonly CommittedChange[],
  searchable: boolean,
): void {
  const shown = fresh.filter((c) => c.status !== 'quarantined');
  published.total += shown.length;
  published.changes.push(...shown.slice(0, Math.max(0, MAX_PUBLISHED_CHANGES - published.changes.length)));
  const before = published.noteIds.length;
  for (const c of shown)
    if (published.noteIds.length < MAX_CHANGED_NOTE_IDS && !published.noteIds.includes(c.noteId))
      published.noteIds.push(c.noteId);
  setCurrentDetails(changesMarkdown(heading, published));
  if (searchable && published.noteIds.length > before)
    upsertSearchAttributes([{ key: CHANGED_NOTES, value: [...published.noteIds] }]);
}

/** The details again, with a line on top (e.g. how to approve a staged run). */
export function publishNotice(published: PublishedChanges, heading: RunHeading, notice: string): void {
  setCurrentDetails(`${notice}\n\n${changesMarkdown(heading, published)}`);
}

export function changesMarkdown(heading: RunHeading, published: PublishedChanges): string {
  const lines = [
    `## Consolidation of \`${heading.tenantId}\` (${heading.trigger})`,
    '',
    `Run \`${heading.runId}\` changed **${published.total}** note version(s)` +
      (published.total > published.changes.length ? `; the first ${published.changes.length} are listed.` : '.'),
  ];
  if (published.changes.length > 0)
    lines.push('To undo one, start `rollbackNoteWorkflow` with the input under it (write your reason and name).');
  for (const c of published.changes) lines.push('', ...changeMarkdown(heading.tenantId, c));
  return lines.join('\n');
}

function changeMarkdown(tenantId: string, c: PublishedChanges['changes'][number]): string[] {
  const from = c.fromVersion === null ? 'new' : `v${c.fromVersion}`;
  const lines = [`### \`${c.noteId}\` ${from} → v${c.toVersion} · ${c.action} · ${c.status}`];
  // Claims stay out of histories (CommittedChange); only results recorded before carry them.
  if (c.claim === undefined) lines.push(`\`nocturne notes show ${c.noteId} --tenant ${tenantId}\` shows its claim`);
  else lines.push(`> ${oneLine(c.claim)}`);
  if (c.previousClaim !== undefined) lines.push('', `was: ${oneLine(c.previousClaim)}`);
  lines.push('', '```json', JSON.stringify(rollbackInput(tenantId, c)), '```');
  return lines;
}

/** A created note is retired; any other change returns the note to the version before it. */
export function rollbackInput(tenantId: string, c: { noteId: string; fromVersion: number | null }) {
  const target = c.fromVersion === null ? { action: 'retire' } : { toVersion: c.fromVersion };
  return { tenantId, noteId: c.noteId, ...target, reason: '<why>', operator: '<your name>' };
}

const oneLine = (s: string): string => s.replace(/\s+/g, ' ');
