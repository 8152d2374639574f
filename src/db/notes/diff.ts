import type { EvidenceRef, NoteVersion } from '../../contracts/note.ts';

/** Fields that describe a note's content and state (identity and bookkeeping left out). */
export const DIFFED_FIELDS = [
  'status',
  'scope',
  'kind',
  'claim',
  'sourceKind',
  'confidence',
  'importance',
  'validFrom',
  'validUntil',
  'supersededBy',
  'sourceCount',
  'lastConfirmedAt',
  'contradictedAt',
  'structure',
  'createdByRun',
] as const;
export type DiffedField = (typeof DIFFED_FIELDS)[number];

export interface FieldChange {
  field: DiffedField;
  from: unknown;
  to: unknown;
}

export interface VersionDiff {
  version: number;
  /** All fields for the first version shown, changed fields only after that. */
  changes: FieldChange[];
  evidenceAdded: EvidenceRef[];
  evidenceRemoved: EvidenceRef[];
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const refKey = (r: EvidenceRef): string => `${r.recordId}:${r.contentHash}`;

/** Consecutive-version diffs, oldest first: what an operator reads before a rollback. */
export function diffVersions(versions: NoteVersion[]): VersionDiff[] {
  return versions.map((v, i) => {
    const prev = i > 0 ? versions[i - 1] : undefined;
    const changes = DIFFED_FIELDS.filter((f) => !prev || !same(prev[f], v[f])).map((field) => ({
      field,
      from: prev?.[field] ?? null,
      to: v[field],
    }));
    const before = new Set((prev?.evidence ?? []).map(refKey));
    const after = new Set(v.evidence.map(refKey));
    return {
      version: v.version,
      changes,
      evidenceAdded: v.evidence.filter((r) => !before.has(refKey(r))),
      evidenceRemoved: (prev?.evidence ?? []).filter((r) => !after.has(refKey(r))),
    };
  });
}
