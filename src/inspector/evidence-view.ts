import type { NoteVersion } from '../contracts/note.ts';
import type { OpenedEvidence } from './evidence.ts';
import { html, type Html } from './html.ts';
import { badge, noteUrl, page } from './layout.ts';

function evidenceRow(e: OpenedEvidence): Html {
  return html`<div class="evidence" data-check="${e.check}">
    <h2>
      ${badge(e.check)} <code>${e.ref.recordId}</code> <span class="muted">cited by v${e.citedBy.join(', v')}</span>
    </h2>
    <p class="muted"><code>${e.ref.objectKey}</code> line ${e.ref.line}</p>
    <p class="muted">
      cited sha256 <code>${e.ref.contentHash}</code>
      ${
        e.storedHash
          ? html`<br />stored line's sha256
              <code>${e.storedHash}</code>
              ${e.storedHash === e.ref.contentHash ? '(matches)' : html`<strong class="error">(differs)</strong>`}`
          : ''
      }
    </p>
    ${e.detail ? html`<p class="error">${e.detail}</p>` : ''}
    ${e.record ? html`<pre class="record">${JSON.stringify(e.record, null, 2)}</pre>` : ''}
  </div>`;
}

/** A note's evidence as read from the archive, each line's hash checked against the citation. */
export function evidencePage(operator: string, current: NoteVersion, opened: OpenedEvidence[]): Html {
  const ok = opened.filter((e) => e.check === 'ok').length;
  return page(
    `Evidence of ${current.noteId}`,
    html`<p><a href="${noteUrl(current.tenantId, current.noteId)}">← back to the note</a></p>
      <section>
        <h1>Evidence: ${current.claim}</h1>
        <p id="evidence-summary">${ok} of ${opened.length} cited records read from the archive with matching hashes.</p>
      </section>
      <section id="evidence">${opened.map(evidenceRow)}</section>`,
    operator,
  );
}
