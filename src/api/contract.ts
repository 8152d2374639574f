import { z } from 'zod';
import { IsoDateTime, TenantId, Ulid } from '../contracts/ids.ts';
import { NoteVersion } from '../contracts/note.ts';
import { ConflictReport } from '../contracts/workflow-inputs.ts';

/**
 * The request and answer bodies of HTTP API v1, besides recall (`src/recall/contract.ts`). The
 * server parses with them, the OpenAPI document is generated from them, and the typed client
 * checks answers with them. Only zod and the contracts: the client package builds from here.
 */

/** Records per `POST /v1/records`; more go in several requests. */
export const MAX_RECORDS_PER_REQUEST = 1000;
const Id = z.string().min(1).max(256);

export const ApiErrorBody = z.object({
  error: z.object({ status: z.number().int(), code: z.string(), reason: z.string() }),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;

/** Raw records as `nocturne archive put` takes them, one JSON object each; `tenantId` defaults to the token's. */
export const RecordsRequest = z.strictObject({
  tenantId: TenantId.optional(),
  records: z.array(z.unknown()).min(1).max(MAX_RECORDS_PER_REQUEST),
});
export type RecordsRequest = z.input<typeof RecordsRequest>;

export const ChatMessage = z.strictObject({
  role: z.enum(['user', 'assistant', 'system', 'tool']),
  content: z.string().min(1).max(100_000),
});

/** A conversation turn by turn; the server assigns record ids and times, in order. */
export const MessagesRequest = z.strictObject({
  tenantId: TenantId.optional(),
  sessionId: Id,
  agentId: Id,
  userId: Id.optional(),
  taskId: Id.optional(),
  messages: z.array(ChatMessage).min(1).max(MAX_RECORDS_PER_REQUEST),
});
export type MessagesRequest = z.input<typeof MessagesRequest>;

export const RecordsResult = z.object({
  tenantId: TenantId,
  /** Records in the archive after this call (new, or already there from an identical request). */
  accepted: z.number().int(),
  /** Ids the server assigned (the messages shape only), in message order. */
  recordIds: z.array(Ulid).optional(),
  objects: z.array(
    z.object({ objectKey: z.string(), status: z.enum(['written', 'alreadyPresent']), recordCount: z.number().int() }),
  ),
  /** One entry per refused record: its position (1-based) and why, as `nocturne archive put` reports lines. */
  rejected: z.array(z.object({ line: z.number().int(), reason: z.string() })),
});
export type RecordsResult = z.infer<typeof RecordsResult>;

export const ConflictRequest = z.strictObject({
  tenantId: TenantId.optional(),
  noteIds: ConflictReport.shape.noteIds,
  reason: ConflictReport.shape.reason,
});
export type ConflictRequest = z.input<typeof ConflictRequest>;

export const ConflictResult = z.object({
  tenantId: TenantId,
  workflowId: z.string(),
  /** The monitor run that received the signal (a new one when this report started it). */
  runId: z.string(),
});
export type ConflictResult = z.infer<typeof ConflictResult>;

export const FEEDBACK_VERDICTS = ['helped', 'wrong'] as const;

/** A recalled note helped, or was wrong. The next consolidation run reads it as a success or a contradiction. */
export const FeedbackRequest = z.strictObject({
  tenantId: TenantId.optional(),
  noteId: Id,
  verdict: z.enum(FEEDBACK_VERDICTS),
  /** The version the agent was given; absent → the current one. */
  version: z.number().int().min(1).optional(),
  /** The `taskId` of the recall that returned the note, when there was one. */
  taskId: Id.optional(),
  sessionId: Id.optional(),
  agentId: Id.optional(),
  userId: Id.optional(),
  comment: z.string().max(4000).optional(),
});
export type FeedbackRequest = z.input<typeof FeedbackRequest>;

export const FeedbackResult = z.object({
  tenantId: TenantId,
  feedbackId: Ulid,
  noteId: z.string(),
  version: z.number().int(),
  verdict: z.enum(FEEDBACK_VERDICTS),
  /** The archived `feedback` record the next run cites as evidence. */
  recordId: Ulid,
  objectKey: z.string(),
  at: IsoDateTime,
});
export type FeedbackResult = z.infer<typeof FeedbackResult>;

export const NoteResult = z.object({ tenantId: TenantId, note: NoteVersion });
export type NoteResult = z.infer<typeof NoteResult>;

export const NoteHistoryResult = z.object({
  tenantId: TenantId,
  noteId: z.string(),
  currentVersion: z.number().int(),
  /** Oldest first. */
  versions: z.array(NoteVersion),
});
export type NoteHistoryResult = z.infer<typeof NoteHistoryResult>;
