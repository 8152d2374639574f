import type { AuditChainReport } from '../db/index.ts';
import { html, type Html } from './html.ts';
import { badge, BASE, noteUrl, page } from './layout.ts';
import { USAGE_SHOWN, type NotePageData } from './note-data.ts';
import { versionsSection } from './versions-view.ts';
import type { RollbackOutcome } from './workflows.ts';

export interface NoteView {
  operator: string;
  data: NotePageData;
  /** The rollback this page was redirected from, when there is one. */
  outcome?: RollbackOutcome;
  /** Whether the rollback workflow's input schema takes `action: "retire"`; otherwise why not. */
  retire: { enabled: true } | { enabled: false; why: string };
}

function outcomeSection(o: RollbackOutcome): Html {
  const body =
    o.status === 'completed' && 'result' in o
      ? o.result.noop || o.result.changes.length === 0
        ? html`<p>No change: the note already was at that version.</p>`
        : html`<ul>
            ${o.result.changes.map(
              (c) => html`<li><code>${c.noteId}</code> v${c.fromVersion ?? '—'} → v${c.toVersion}</li>`,
            )}
          </ul>`
      : o.status === 'failed' && 'failure' in o
        ? html`<p class="error">${o.failure}</p>`
        : html`<p class="muted">Reload the page to see how it ended.</p>`;
  return html`<section id="outcome">
    <h2>Rollback workflow ${badge(o.status)}</h2>
    <p>Workflow id <code id="workflow-id">${o.workflowId}</code></p>
    ${body}
  </section>`;
}

function retireForm(v: NoteView): Html {
  const { current } = v.data;
  if (['retired', 'erased'].includes(current.status)) return html``;
  const disabled = !v.retire.enabled;
  const why = v.retire.enabled ? '' : v.retire.why;
  return html`<form method="post" action="${noteUrl(current.tenantId, current.noteId)}/retire" class="inline">
    <input name="reason" required placeholder="why (goes to the audit)" size="30" aria-label="reason to retire" />
    <button type="submit" id="retire" ${disabled ? 'disabled' : ''} title="${why}">Retire note</button>
    ${disabled ? html`<span class="muted" id="retire-why">${why}</span>` : ''}
  </form>`;
}

function chainBadge(chain: AuditChainReport): Html {
  return chain.ok
    ? html`<span id="chain">${badge('ok')} the tenant's chain verifies (${chain.entries} entries)</span>`
    : html`<span id="chain">${badge('broken')} broken at entry ${chain.brokenSeq}: ${chain.reason}</span>`;
}

function auditSection(d: NotePageData): Html {
  return html`<section id="audit">
    <h2>Audit ${chainBadge(d.chain)}</h2>
    <table>
      <thead>
        <tr>
          <th>#</th>
          <th>At</th>
          <th>Action</th>
          <th>By</th>
          <th>Versions</th>
          <th>Reason</th>
          <th>Hash</th>
        </tr>
      </thead>
      <tbody>
        ${d.audit.map(
          (a) =>
            html`<tr>
              <td>${a.seq}</td>
              <td>${a.at}</td>
              <td>${a.action}</td>
              <td>${a.actor}</td>
              <td>${a.fromVersion ?? '—'} → ${a.toVersion ?? '—'}</td>
              <td>${a.reason}</td>
              <td><code title="${a.hash}">${a.hash.slice(0, 12)}</code></td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

function usageSection(d: NotePageData): Html {
  const shown = d.usage.slice(0, USAGE_SHOWN);
  return html`<section id="usage">
    <h2>Usage: recalls that returned this note</h2>
    ${
      shown.length === 0
        ? html`<p class="muted">No recall has returned this note.</p>`
        : html`<table>
            <thead>
              <tr>
                <th>At</th>
                <th>Task</th>
                <th>Version</th>
                <th>Rank</th>
                <th>Score</th>
              </tr>
            </thead>
            <tbody>
              ${shown.map(
                (u) =>
                  html`<tr>
                    <td>${u.at}</td>
                    <td><code>${u.taskId}</code></td>
                    <td>v${u.version}</td>
                    <td>${u.rank}</td>
                    <td>${u.score.toFixed(3)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${d.usage.length > USAGE_SHOWN ? html`<p class="muted">Only the latest ${USAGE_SHOWN} are shown.</p>` : ''}
  </section>`;
}

/** One note: what it says now, how it got there, who changed it, who used it, and the buttons. */
export function notePage(v: NoteView): Html {
  const { current } = v.data;
  const url = noteUrl(current.tenantId, current.noteId);
  return page(
    current.claim,
    html`<p><a href="${BASE}?tenant=${encodeURIComponent(current.tenantId)}">← search ${current.tenantId}</a></p>
      ${v.outcome ? outcomeSection(v.outcome) : ''}
      <section id="note">
        <h1 id="claim">${current.claim}</h1>
        <p>
          ${badge(current.status)} v<span id="current-version">${current.version}</span> · ${current.kind} ·
          ${current.scope.level}:${current.scope.key} · confidence ${current.confidence.toFixed(2)} · note
          <code>${current.noteId}</code> · tenant <code>${current.tenantId}</code>
        </p>
        ${
          current.supersededBy
            ? html`<p>
                Superseded by
                <a href="${noteUrl(current.tenantId, current.supersededBy)}" id="successor">${current.supersededBy}</a>
              </p>`
            : ''
        }
        <p><a href="${url}/evidence" id="open-evidence">Open its evidence from the archive</a></p>
        ${retireForm(v)}
      </section>
      ${versionsSection(current, v.data.versions, v.data.diffs)} ${auditSection(v.data)} ${usageSection(v.data)}`,
    v.operator,
  );
}
