import { describe, expect, it } from 'vitest';
import type { NoteVersion } from '../../../src/contracts/note.ts';
import { diffVersions } from '../../../src/db/notes/diff.ts';
import { evidenceRef, noteContent } from '../../helpers/notes.ts';

const base = (): NoteVersion => {
  const c = noteContent();
  return {
    noteId: 'n',
    tenantId: 't',
    version: 1,
    status: 'active',
    scope: c.scope,
    kind: c.kind,
    claim: c.claim,
    evidence: c.evidence,
    sourceKind: c.sourceKind,
    confidence: 0.9,
    importance: 0.5,
    validFrom: c.validFrom,
    validUntil: null,
    supersededBy: null,
    sourceCount: 1,
    lastConfirmedAt: c.lastConfirmedAt,
    contradictedAt: null,
    createdByRun: 'r1',
    createdAt: c.validFrom,
  };
};

describe('diffVersions', () => {
  it('lists every field of the first version and only changed fields after it, with evidence added and removed', () => {
    const v1 = base();
    const added = evidenceRef('new');
    const v2 = { ...v1, version: 2, confidence: 0.95, evidence: [added] };
    const v3 = { ...v2, version: 3 };
    const [d1, d2, d3] = diffVersions([v1, v2, v3]);
    expect(d1?.changes.map((c) => c.field)).toContain('claim');
    expect(d2?.changes).toEqual([{ field: 'confidence', from: 0.9, to: 0.95 }]);
    expect(d2?.evidenceAdded).toEqual([added]);
    expect(d2?.evidenceRemoved).toEqual(v1.evidence);
    expect(d3).toEqual({ version: 3, changes: [], evidenceAdded: [], evidenceRemoved: [] });
  });
});
