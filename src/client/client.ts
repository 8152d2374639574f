import type { z } from 'zod';
import {
  ApiErrorBody,
  ConflictResult,
  FeedbackResult,
  NoteHistoryResult,
  NoteResult,
  RecordsResult,
  type ConflictRequest,
  type FeedbackRequest,
  type MessagesRequest,
} from '../api/contract.ts';
import { RecallResult, type RecallRequest } from '../recall/contract.ts';

/** What the agent sends to recall: a RecallRequest whose tenantId defaults to the token's tenant. */
export type RecallClientRequest = Omit<RecallRequest, 'tenantId'> & { tenantId?: string };

export interface NocturneClientOptions {
  /** e.g. http://127.0.0.1:8787 */
  baseUrl: string;
  /** The tenant's bearer token. */
  token: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default 10000 */
  timeoutMs?: number;
}

/** A non-2xx answer, with its status and the server's one-line reason. */
export class NocturneApiError extends Error {
  override name = 'NocturneApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly reason: string,
  ) {
    super(`Nocturne API ${status} ${code}: ${reason}`);
  }
}

/**
 * Typed client of the Nocturne HTTP API v1. HTTP only (no Temporal, no database): answers are
 * checked with the schemas the server answers with, so a version skew fails loudly instead of
 * yielding half-read notes.
 */
export function createNocturneClient(options: NocturneClientOptions) {
  const doFetch = options.fetch ?? globalThis.fetch;
  async function call<S extends z.ZodType>(method: 'GET' | 'POST', path: string, body: unknown, answer: S) {
    const response = await doFetch(new URL(path, options.baseUrl), {
      method,
      headers: {
        authorization: `Bearer ${options.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const parsed: unknown = await response.json().catch(() => undefined);
    if (!response.ok) {
      const err = ApiErrorBody.safeParse(parsed);
      throw err.success
        ? new NocturneApiError(response.status, err.data.error.code, err.data.error.reason)
        : new NocturneApiError(response.status, 'http_error', response.statusText || 'request failed');
    }
    return answer.parse(parsed) as z.output<S>;
  }
  const note = (id: string) => `/v1/notes/${encodeURIComponent(id)}`;
  return {
    recall: (request: RecallClientRequest) => call('POST', '/v1/recall', request, RecallResult),
    /** Raw records, validated by the server like `nocturne archive put`; refused ones come back in `rejected`. */
    appendRecords: (records: readonly unknown[], opts: { tenantId?: string } = {}) =>
      call('POST', '/v1/records', { ...opts, records }, RecordsResult),
    /** A conversation, archived as records with server-assigned ids (returned in `recordIds`). */
    appendMessages: (request: MessagesRequest) => call('POST', '/v1/records', request, RecordsResult),
    reportConflict: (request: ConflictRequest) => call('POST', '/v1/conflicts', request, ConflictResult),
    feedback: (request: FeedbackRequest) => call('POST', '/v1/feedback', request, FeedbackResult),
    getNote: (noteId: string) => call('GET', note(noteId), undefined, NoteResult),
    noteHistory: (noteId: string) => call('GET', `${note(noteId)}/history`, undefined, NoteHistoryResult),
  };
}

export type NocturneClient = ReturnType<typeof createNocturneClient>;
