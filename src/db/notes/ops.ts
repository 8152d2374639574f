import { z } from 'zod';
import { NoteContent, NOTE_STATUSES } from '../../contracts/note.ts';
import { TenantId } from '../../contracts/ids.ts';

/** Every way a note changes after creation; each writes version N+1 and one audit entry. */
export const VERSION_ACTIONS = [
  'revise',
  'reinforce',
  'retire',
  'quarantine',
  'supersede',
  'rollback',
  'approve',
  'reject',
] as const;
export type VersionAction = (typeof VERSION_ACTIONS)[number];

const Embedding = z.array(z.number().finite()).min(1);

/** Partial content for a new version. `sourceCount` has no default here: absent means unchanged. */
export const ContentChanges = NoteContent.extend({ sourceCount: z.number().int().min(1) }).partial();
export type ContentChanges = z.input<typeof ContentChanges>;

export const CreateOp = z.object({
  op: z.literal('create'),
  noteId: z.string().min(1).max(64),
  content: NoteContent,
  /**
   * Staged notes wait for an approval (run in staged mode); a proposal that validation
   * quarantined is recorded as `quarantined` so it is auditable but never recalled. @default 'active'
   */
  status: z.enum(['staged', 'active', 'quarantined']).default('active'),
  /** Embedding of the claim; absent → indexed later. */
  embedding: Embedding.optional(),
  reason: z.string().default(''),
});

export const NewVersionOp = z
  .object({
    op: z.literal('newVersion'),
    action: z.enum(VERSION_ACTIONS),
    noteId: z.string().min(1).max(64),
    /** Optimistic check: the version the writer read. A different current version is a conflict. */
    expectedVersion: z.number().int().min(1),
    changes: ContentChanges.optional(),
    /** Overrides the action's default status (see DEFAULT_STATUS). */
    status: z.enum(NOTE_STATUSES).optional(),
    /** supersede: the note that replaces this one. */
    supersededBy: z.string().min(1).optional(),
    /** rollback: the version whose content and status the new version copies. */
    targetVersion: z.number().int().min(1).optional(),
    embedding: Embedding.optional(),
    reason: z.string().default(''),
  })
  .refine((op) => op.action !== 'supersede' || op.supersededBy !== undefined, {
    message: 'supersede needs supersededBy',
    path: ['supersededBy'],
  })
  .refine((op) => op.action !== 'rollback' || op.targetVersion !== undefined, {
    message: 'rollback needs targetVersion',
    path: ['targetVersion'],
  });

export const NoteOp = z.discriminatedUnion('op', [CreateOp, NewVersionOp]);
export type NoteOp = z.input<typeof NoteOp>;
export type ParsedNoteOp = z.output<typeof NoteOp>;

export const NoteBatch = z.object({
  tenantId: TenantId,
  runId: z.string().min(1),
  batchNo: z.number().int().min(0),
  /** Workflow id, run id or operator name, as recorded in the audit log. */
  actor: z.string().min(1),
  ops: z.array(NoteOp).min(1),
});
export type NoteBatch = z.input<typeof NoteBatch>;

export const NoteChange = z.object({
  noteId: z.string(),
  action: z.string(),
  fromVersion: z.number().int().nullable(),
  toVersion: z.number().int(),
  auditSeq: z.number().int(),
});
export type NoteChange = z.infer<typeof NoteChange>;

/** What a batch did; stored with its idempotency key and returned unchanged on a replay. */
export const BatchResult = z.object({
  tenantId: z.string(),
  runId: z.string(),
  batchNo: z.number().int(),
  appliedAt: z.string(),
  changes: z.array(NoteChange),
});
export type BatchResult = z.infer<typeof BatchResult>;
