import type { NoteVersion } from '../contracts/note.ts';
import type { FieldChange, VersionDiff } from '../db/index.ts';
import { html, type Html } from './html.ts';
import { badge, noteUrl } from './layout.ts';
import { diffWords } from './word-diff.ts';

const show = (v: unknown): string =>
  v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** Old and new text word by word: removed words struck through, added words highlighted. */
export function wordDiff(before: string, after: string): Html {
  const parts = diffWords(before, after);
  // A replaced word reads "old new", not "oldnew".
  const gap = (i: number) => (parts[i + 1]?.op === 'added' && !/\s$/.test(parts[i]?.text ?? '') ? ' ' : '');
  return html`<span class="diff"
    >${parts.map((p, i) =>
      p.op === 'same' ? p.text : p.op === 'removed' ? html`<del>${p.text}</del>${gap(i)}` : html`<ins>${p.text}</ins>`,
    )}</span
  >`;
}

function change(c: FieldChange, first: boolean): Html {
  if (first)
    return html`<tr>
      <th>${c.field}</th>
      <td>${show(c.to)}</td>
    </tr>`;
  return html`<tr>
    <th>${c.field}</th>
    <td>${wordDiff(show(c.from), show(c.to))}</td>
  </tr>`;
}

function rollbackForm(current: NoteVersion, version: number): Html {
  return html`<form method="post" action="${noteUrl(current.tenantId, current.noteId)}/rollback" class="inline">
    <input type="hidden" name="toVersion" value="${version}" />
    <input name="reason" required placeholder="why (goes to the audit)" size="30" aria-label="reason for v${version}" />
    <button type="submit" id="rollback-v${version}">Roll back to v${version}</button>
  </form>`;
}

/** Each version (newest first) as the changes from the one before, with a rollback button on older ones. */
export function versionsSection(current: NoteVersion, versions: NoteVersion[], diffs: VersionDiff[]): Html {
  const byVersion = new Map(versions.map((v) => [v.version, v]));
  const rows = [...diffs].reverse().map((d) => {
    const v = byVersion.get(d.version);
    const first = d.version === diffs[0]?.version;
    return html`<div class="version" id="version-${d.version}">
      <h2>
        v${d.version} ${v ? badge(v.status) : ''}
        <span class="muted">${v?.createdAt} · run ${v?.createdByRun ?? '—'}</span>
        ${d.version === current.version ? html`<span class="badge">current</span>` : ''}
      </h2>
      <table>
        ${d.changes.map((c) => change(c, first))}
        ${d.evidenceAdded.map(
          (r) =>
            html`<tr>
              <th>+ evidence</th>
              <td><code>${r.recordId}</code></td>
            </tr>`,
        )}
        ${d.evidenceRemoved.map(
          (r) =>
            html`<tr>
              <th>− evidence</th>
              <td><code>${r.recordId}</code></td>
            </tr>`,
        )}
      </table>
      ${d.version !== current.version && current.status !== 'erased' ? rollbackForm(current, d.version) : ''}
    </div>`;
  });
  return html`<section id="versions">
    <h2>Versions (${versions.length}), newest first; each shows what changed from the one before</h2>
    ${rows}
  </section>`;
}
