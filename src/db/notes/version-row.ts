import { z } from 'zod';
import {
  EvidenceRef,
  NOTE_KINDS,
  NOTE_STATUSES,
  SCOPE_LEVELS,
  SOURCE_KINDS,
  type NoteVersion,
} from '../../contracts/note.ts';
import { NoteStructure } from '../../contracts/note-structure.ts';
import { intColumn, isoColumn, isoColumnNullable } from '../rows.ts';

export const VERSION_COLUMNS = `v.tenant_id, v.note_id, v.version, v.status, v.scope_level, v.scope_key, v.kind, v.claim,
  v.evidence, v.source_kind, v.confidence, v.importance, v.valid_from, v.valid_until, v.superseded_by,
  v.source_count, v.last_confirmed_at, v.contradicted_at, v.structure, v.created_by_run, v.created_at`;

/** A `note_versions` row (VERSION_COLUMNS) → the NoteVersion contract. */
export const NoteVersionRow = z
  .object({
    tenant_id: z.string(),
    note_id: z.string(),
    version: intColumn,
    status: z.enum(NOTE_STATUSES),
    scope_level: z.enum(SCOPE_LEVELS),
    scope_key: z.string(),
    kind: z.enum(NOTE_KINDS),
    claim: z.string(),
    evidence: z.array(EvidenceRef),
    source_kind: z.enum(SOURCE_KINDS),
    confidence: z.number(),
    importance: z.number(),
    valid_from: isoColumn,
    valid_until: isoColumnNullable,
    superseded_by: z.string().nullable(),
    source_count: intColumn,
    last_confirmed_at: isoColumn,
    contradicted_at: isoColumnNullable,
    structure: NoteStructure.nullable().optional(),
    created_by_run: z.string().nullable(),
    created_at: isoColumn,
  })
  .transform((r): NoteVersion => ({
    noteId: r.note_id,
    tenantId: r.tenant_id,
    version: r.version,
    status: r.status,
    scope: { level: r.scope_level, key: r.scope_key },
    kind: r.kind,
    claim: r.claim,
    evidence: r.evidence,
    sourceKind: r.source_kind,
    confidence: r.confidence,
    importance: r.importance,
    validFrom: r.valid_from,
    validUntil: r.valid_until,
    supersededBy: r.superseded_by,
    sourceCount: r.source_count,
    lastConfirmedAt: r.last_confirmed_at,
    contradictedAt: r.contradicted_at,
    structure: r.structure ?? null,
    createdByRun: r.created_by_run,
    createdAt: r.created_at,
  }));
