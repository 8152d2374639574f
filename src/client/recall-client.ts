import { z } from 'zod';
import { RecallRequest, RecallResult } from '../recall/contract.ts';
import { formatIssues } from '../contracts/format-issues.ts';

/** What the agent sends: a RecallRequest whose tenantId defaults to the token's tenant. */
export type RecallClientRequest = Omit<RecallRequest, 'tenantId'> & { tenantId?: string };

export interface RecallClientOptions {
  /** e.g. http://127.0.0.1:8787 */
  baseUrl: string;
  /** The tenant's bearer token. */
  token: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default 10000 */
  timeoutMs?: number;
}

const ErrorBody = z.object({ error: z.object({ status: z.number(), code: z.string(), reason: z.string() }) });

/** A non-2xx answer from the recall API, with its status and the server's one-line reason. */
export class RecallApiError extends Error {
  override name = 'RecallApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly reason: string,
  ) {
    super(`recall API ${status} ${code}: ${reason}`);
  }
}

export interface RecallClient {
  recall(request: RecallClientRequest): Promise<RecallResult>;
}

/**
 * Typed client of `POST /v1/recall`. Validates the request locally first (a bad request fails
 * here with the same one-line reason the server would give) and the answer with the same
 * schema the server uses, so a version skew fails loudly instead of yielding half-read notes.
 */
export function createRecallClient(options: RecallClientOptions): RecallClient {
  const doFetch = options.fetch ?? globalThis.fetch;
  const endpoint = new URL('/v1/recall', options.baseUrl).toString();
  return {
    async recall(request) {
      const local = RecallRequest.safeParse({ ...request, tenantId: request.tenantId ?? 'placeholder' });
      if (!local.success) {
        throw new RecallApiError(400, 'invalid_request', formatIssues(local.error.issues, { root: '(body)' }));
      }
      const response = await doFetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.token}` },
        body: JSON.stringify(request),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      const body: unknown = await response.json().catch(() => undefined);
      if (!response.ok) {
        const err = ErrorBody.safeParse(body);
        throw err.success
          ? new RecallApiError(response.status, err.data.error.code, err.data.error.reason)
          : new RecallApiError(response.status, 'http_error', response.statusText || 'request failed');
      }
      return RecallResult.parse(body);
    },
  };
}
