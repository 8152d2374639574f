import { z } from 'zod';
import { IsoDateTime, TenantId } from './ids.ts';

export const AUDIT_ACTIONS = [
  'create',
  'reinforce',
  'revise',
  'retire',
  'quarantine',
  /** A stronger note replaced this one (its version records `supersededBy`). */
  'supersede',
  'rollback',
  'erase',
  'approve',
  'reject',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AuditEntry = z.object({
  seq: z.number().int().min(1),
  tenantId: TenantId,
  at: IsoDateTime,
  actor: z.string().min(1),
  action: z.enum(AUDIT_ACTIONS),
  noteId: z.string().min(1),
  fromVersion: z.number().int().min(0).nullable(),
  toVersion: z.number().int().min(1).nullable(),
  reason: z.string(),
  prevHash: z.string().regex(/^[0-9a-f]{64}$/),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  /** Id of the key whose HMAC `hash` is; null or absent: a legacy entry (unkeyed sha256). */
  keyId: z.string().nullable().optional(),
  /** sha256 of the recorded version's claim, structure and evidence (keyed entries). */
  versionDigest: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable()
    .optional(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;
