import type { ArchiveStore } from '../archive/store.ts';
import type { ConflictReporter } from '../conflicts/lazy-reporter.ts';
import { ServiceUnavailableError } from '../conflicts/errors.ts';
import { selectCurrentVersion, selectNoteVersions, withTenant, type Db } from '../db/index.ts';
import type { NoteScope } from '../contracts/note.ts';
import type { Embedder } from '../embeddings/embedder.ts';
import { FeedbackTargetError, recordFeedback } from '../feedback/record-feedback.ts';
import { RecallRequest, type RecallResult } from '../recall/contract.ts';
import { describeRequestIssues, InvalidRecallRequestError, recall, type RecallOptions } from '../recall/recall.ts';
import {
  ConflictRequest,
  FeedbackRequest,
  MessagesRequest,
  RecordsRequest,
  type ConflictResult,
  type FeedbackResult,
  type NoteHistoryResult,
  type NoteResult,
  type RecordsResult,
} from './contract.ts';
import type { Grant } from './auth.ts';
import { ApiFailure, assertNoControlCharacters, assertTenant, parseForTenant } from './http.ts';
import { archiveRecords, recordsFromMessages, withDefaultTenant } from './records.ts';
import type { IngestIndexer } from '../record-index/ingest-indexer.ts';

export interface ApiServiceDeps {
  db: Db;
  embedder: Embedder;
  /** Absent → `POST /v1/records` and `/v1/feedback` answer 503. */
  archive?: ArchiveStore | undefined;
  /** Absent → `POST /v1/conflicts` answers 503. */
  conflicts?: ConflictReporter | undefined;
  /** Indexes appended records for recall the same day. Absent → they are indexed by the next consolidation run. */
  recordIndexer?: IngestIndexer | undefined;
  recallOptions?: RecallOptions | undefined;
  clock?: (() => Date) | undefined;
}

/**
 * What the v1 routes and the MCP tools do, once the token's tenant is known. Each takes the body
 * as sent (tenantId optional, defaulting to the token's) and throws `ApiFailure` for what the
 * caller must fix; both front ends turn that into their own error form.
 */
export function createApiService(deps: ApiServiceDeps) {
  const now = () => (deps.clock ?? (() => new Date()))();
  const archive = (): ArchiveStore => {
    if (!deps.archive) throw new ApiFailure(503, 'unavailable', 'this server has no archive configured');
    return deps.archive;
  };
  const indexed = (result: RecordsResult): RecordsResult => {
    deps.recordIndexer?.enqueue(
      result.tenantId,
      result.objects.map((o) => o.objectKey),
    );
    return result;
  };
  return {
    /** Point-in-time recall (`asOf`) shows what was later quarantined or erased: audit tokens only. */
    async recall(caller: Caller, body: Record<string, unknown>, signal?: AbortSignal): Promise<RecallResult> {
      const { tenantId } = caller;
      assertNoControlCharacters(body);
      if (body.asOf !== undefined && !caller.audit)
        throw new ApiFailure(
          403,
          'forbidden',
          'asOf (point-in-time recall) needs an audit token (NOCTURNE_AUDIT_TOKENS); this is an agent token',
        );
      // A user-bound token's user is who asks, unless the body says otherwise.
      const asker = caller.userId ? { askedBy: caller.userId } : {};
      const parsed = RecallRequest.safeParse({ tenantId, ...asker, ...body });
      if (!parsed.success) throw new ApiFailure(400, 'invalid_request', describeRequestIssues(parsed.error.issues));
      assertTenant(parsed.data.tenantId, tenantId);
      try {
        const options = {
          ...deps.recallOptions,
          ...(caller.userId ? { visibleToUser: caller.userId } : {}),
          ...(signal ? { signal } : {}),
        };
        return await recall(deps.db, deps.embedder, parsed.data, options);
      } catch (error) {
        if (error instanceof InvalidRecallRequestError) throw new ApiFailure(400, 'invalid_request', error.message);
        throw error;
      }
    },

    /** Raw records (`{records}`), or a conversation (`{sessionId, agentId, messages}`) archived as records. */
    async appendRecords(tenantId: string, body: Record<string, unknown>): Promise<RecordsResult> {
      assertNoControlCharacters(body);
      const at = now();
      if ('messages' in body) {
        const req = parseForTenant(MessagesRequest, body, tenantId);
        const records = recordsFromMessages(req, at);
        const result = indexed(await archiveRecords(archive(), { tenantId, records, now: at }));
        return { ...result, recordIds: records.map((r) => r.id) };
      }
      const req = parseForTenant(RecordsRequest, body, tenantId);
      return indexed(
        await archiveRecords(archive(), { tenantId, records: withDefaultTenant(req.records, tenantId), now: at }),
      );
    },

    async appendNdjson(
      tenantId: string,
      parsed: { values: unknown[]; lineNumbers: number[]; rejected: RecordsResult['rejected'] },
    ): Promise<RecordsResult> {
      const records = withDefaultTenant(parsed.values, tenantId);
      const result =
        records.length === 0
          ? { tenantId, accepted: 0, objects: [], rejected: [] }
          : indexed(
              await archiveRecords(archive(), { tenantId, records, lineNumbers: parsed.lineNumbers, now: now() }),
            );
      return { ...result, rejected: [...parsed.rejected, ...result.rejected].sort((a, b) => a.line - b.line) };
    },

    async reportConflict(tenantId: string, body: Record<string, unknown>): Promise<ConflictResult> {
      assertNoControlCharacters(body);
      const req = parseForTenant(ConflictRequest, body, tenantId);
      if (!deps.conflicts) throw new ApiFailure(503, 'unavailable', 'this server has no Temporal client configured');
      try {
        const sent = await deps.conflicts.report({
          tenantId,
          noteIds: req.noteIds,
          ...(req.reason ? { reason: req.reason } : {}),
        });
        return { tenantId, ...sent };
      } catch (error) {
        if (error instanceof ServiceUnavailableError) throw new ApiFailure(503, 'unavailable', error.message);
        throw error;
      }
    },

    async feedback(tenantId: string, body: Record<string, unknown>): Promise<FeedbackResult> {
      assertNoControlCharacters(body);
      const req = parseForTenant(FeedbackRequest, body, tenantId);
      try {
        const saved = await recordFeedback({ db: deps.db, archive: archive(), clock: now }, req);
        return {
          tenantId,
          feedbackId: saved.feedbackId,
          noteId: saved.noteId,
          version: saved.version,
          verdict: saved.verdict,
          recordId: saved.recordId,
          objectKey: saved.objectKey,
          at: saved.at,
        };
      } catch (error) {
        if (error instanceof FeedbackTargetError)
          throw error.kind === 'no_note'
            ? new ApiFailure(404, 'not_found', error.message)
            : new ApiFailure(400, 'invalid_request', error.message);
        throw error;
      }
    },

    async getNote(caller: Caller, noteId: string): Promise<NoteResult> {
      const { tenantId } = caller;
      assertNoControlCharacters({ noteId });
      const note = await withTenant(deps.db, tenantId, (tx) => selectCurrentVersion(tx, { tenantId, noteId }));
      if (!note || !visibleTo(caller, note.scope)) throw noSuchNote(noteId);
      return { tenantId, note };
    },

    async noteHistory(caller: Caller, noteId: string): Promise<NoteHistoryResult> {
      const { tenantId } = caller;
      assertNoControlCharacters({ noteId });
      const versions = await withTenant(deps.db, tenantId, (tx) => selectNoteVersions(tx, { tenantId, noteId }));
      const current = await withTenant(deps.db, tenantId, (tx) => selectCurrentVersion(tx, { tenantId, noteId }));
      if (!current || versions.length === 0 || !versions.every((v) => visibleTo(caller, v.scope)))
        throw noSuchNote(noteId);
      return { tenantId, noteId, currentVersion: current.version, versions };
    },
  };
}

export type ApiService = ReturnType<typeof createApiService>;

/** Who asks: the token's tenant, whether it may audit, and the user a user-bound token reads for. */
export type Caller = Pick<Grant, 'tenantId' | 'audit' | 'userId'>;

/**
 * What a user-bound token may read: notes scoped to its user, and scopes wider than one user
 * (agent, task type, tenant). Session notes and other users' notes stay hidden. Recall applies
 * the same rule in SQL (src/recall/queries.ts).
 */
export function visibleTo(caller: Pick<Grant, 'userId'>, scope: NoteScope): boolean {
  if (caller.userId === undefined) return true;
  if (scope.level === 'user') return scope.key === caller.userId;
  return scope.level !== 'session';
}

function noSuchNote(noteId: string): ApiFailure {
  return new ApiFailure(404, 'not_found', `no note ${noteId} in this tenant`);
}
