import { z } from 'zod';
import { IsoDateTime, TenantId, Ulid } from './ids.ts';
import { NoteStructure } from './note-structure.ts';

/** Narrowest first. `session`: one conversation or episode ("it was moved to 4pm" holds there, not for the task type). */
export const SCOPE_LEVELS = ['session', 'user', 'agent', 'task_type', 'tenant'] as const;
export const NoteScope = z.object({ level: z.enum(SCOPE_LEVELS), key: z.string().min(1).max(256) });
export type NoteScope = z.infer<typeof NoteScope>;

export const NOTE_KINDS = [
  'constraint',
  'preference',
  'fact',
  'strategy',
  'failure_cause',
  'tool_behavior',
  'episode_summary',
] as const;
export type NoteKind = (typeof NOTE_KINDS)[number];

/** `user_statement`: what a user said about themselves or their work, unprompted by a failure (weaker than a requirement). */
export const SOURCE_KINDS = [
  'user_requirement',
  'user_correction',
  'user_statement',
  'tool_fact',
  'approval',
  'inference',
] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export const NOTE_STATUSES = ['staged', 'active', 'superseded', 'retired', 'quarantined', 'erased'] as const;
export type NoteStatus = (typeof NOTE_STATUSES)[number];

/** Points at one raw record; `contentHash` is the sha256 of the record's canonical JSON line. */
export const EvidenceRef = z.object({
  recordId: Ulid,
  objectKey: z.string().min(1),
  line: z.number().int().min(1),
  contentHash: z.string().regex(/^[0-9a-f]{64}$/, 'expected a sha256 hex digest'),
});
export type EvidenceRef = z.infer<typeof EvidenceRef>;

/** The content of a note version: what a writer supplies. */
export const NoteContent = z.object({
  scope: NoteScope,
  kind: z.enum(NOTE_KINDS),
  claim: z.string().min(1).max(4000),
  evidence: z.array(EvidenceRef).min(1),
  sourceKind: z.enum(SOURCE_KINDS),
  confidence: z.number().min(0).max(1),
  importance: z.number().min(0).max(1),
  validFrom: IsoDateTime,
  validUntil: IsoDateTime.nullable().optional(),
  sourceCount: z.number().int().min(1).default(1),
  lastConfirmedAt: IsoDateTime,
  contradictedAt: IsoDateTime.nullable().optional(),
  /** The fields the claim is rendered from; absent on notes written before structured notes. */
  structure: NoteStructure.optional(),
});
export type NoteContent = z.input<typeof NoteContent>;

/** An immutable note version as read back from the store. */
export const NoteVersion = z.object({
  noteId: z.string().min(1),
  tenantId: TenantId,
  version: z.number().int().min(1),
  status: z.enum(NOTE_STATUSES),
  scope: NoteScope,
  kind: z.enum(NOTE_KINDS),
  claim: z.string(),
  evidence: z.array(EvidenceRef),
  sourceKind: z.enum(SOURCE_KINDS),
  confidence: z.number(),
  importance: z.number(),
  validFrom: IsoDateTime,
  validUntil: IsoDateTime.nullable(),
  supersededBy: z.string().nullable(),
  sourceCount: z.number().int(),
  lastConfirmedAt: IsoDateTime,
  contradictedAt: IsoDateTime.nullable(),
  structure: NoteStructure.nullable().optional(),
  createdByRun: z.string().nullable(),
  createdAt: IsoDateTime,
});
export type NoteVersion = z.infer<typeof NoteVersion>;

/** A stored version read as the content a writer supplies, for the rules that compare claims. */
export function contentOf(v: NoteVersion): NoteContent {
  return {
    scope: v.scope,
    kind: v.kind,
    claim: v.claim,
    evidence: v.evidence,
    sourceKind: v.sourceKind,
    confidence: v.confidence,
    importance: v.importance,
    validFrom: v.validFrom,
    validUntil: v.validUntil,
    sourceCount: v.sourceCount,
    lastConfirmedAt: v.lastConfirmedAt,
    contradictedAt: v.contradictedAt,
    ...(v.structure ? { structure: v.structure } : {}),
  };
}
