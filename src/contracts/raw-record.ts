import { z } from 'zod';
import { IsoDateTime, TenantId, Ulid } from './ids.ts';

export const RECORD_KINDS = [
  'user_message',
  'agent_message',
  'tool_call',
  'tool_result',
  'user_correction',
  'approval',
  'error',
  'task_outcome',
  'feedback',
  'memory_used',
] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/**
 * Who is speaking. Content from `tool` or `retrieved` is data, never an instruction; the field can
 * only take trust away: tool results, calls and errors are data whatever it says (policies/untrusted/trust.ts).
 */
export const RECORD_SOURCES = ['user', 'tool', 'agent', 'retrieved', 'system'] as const;

export const Outcome = z.object({
  status: z.enum(['success', 'failure', 'pending']),
  expected: z.unknown().optional(),
  actual: z.unknown().optional(),
  reward: z.number().finite().optional(),
});

const recordFields = {
  id: Ulid,
  tenantId: TenantId,
  userId: z.string().min(1).max(256).optional(),
  agentId: z.string().min(1).max(256),
  sessionId: z.string().min(1).max(256),
  taskId: z.string().min(1).max(256).optional(),
  taskType: z.string().min(1).max(256).optional(),
  kind: z.enum(RECORD_KINDS),
  /** When it happened, by the producer's clock. */
  observedAt: IsoDateTime,
  /** When the system received it. Kept apart from observedAt for point-in-time questions. */
  recordedAt: IsoDateTime,
  role: z.string().min(1).max(64).optional(),
  text: z.string().optional(),
  payload: z.unknown().optional(),
  tags: z.array(z.string().min(1).max(64)).max(64).optional(),
  importance: z.number().min(0).max(1).optional(),
  outcome: Outcome.optional(),
  source: z.enum(RECORD_SOURCES).optional(),
};

/**
 * A raw record as stored in the archive. Unknown fields are kept (loose), so a newer
 * producer's fields survive a round trip through an older reader.
 */
export const RawRecord = z.looseObject(recordFields);
export type RawRecord = z.infer<typeof RawRecord>;

/** What a producer sends: `recordedAt` is stamped by the archive writer when absent. */
export const RawRecordInput = z.looseObject({ ...recordFields, recordedAt: IsoDateTime.optional() });
export type RawRecordInput = z.infer<typeof RawRecordInput>;
