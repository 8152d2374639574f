import { z } from 'zod';
import { TenantId } from '../contracts/ids.ts';
import { RecallRequest, RecallResult } from '../recall/contract.ts';
import {
  ApiErrorBody,
  ConflictRequest,
  ConflictResult,
  FeedbackRequest,
  FeedbackResult,
  MessagesRequest,
  NoteHistoryResult,
  NoteResult,
  RecordsRequest,
  RecordsResult,
} from './contract.ts';

/** One route as the OpenAPI document shows it; `path` in OpenAPI form (`/v1/notes/{id}`). */
export interface RouteSpec {
  method: 'get' | 'post';
  path: string;
  summary: string;
  description: string;
  /** Component names of the accepted bodies (several: `oneOf`). */
  request?: string[];
  response: { status: number; schema: string };
  errors: number[];
}

const HttpRecallRequest = RecallRequest.extend({ tenantId: TenantId.optional() });

/** Every schema the document names, from the zod contracts the server parses with. */
const SCHEMAS: Record<string, z.ZodType> = {
  RecallRequest: HttpRecallRequest,
  RecallResult,
  RecordsRequest,
  MessagesRequest,
  RecordsResult,
  ConflictRequest,
  ConflictResult,
  FeedbackRequest,
  FeedbackResult,
  NoteResult,
  NoteHistoryResult,
  ApiError: ApiErrorBody,
};

/** What every authenticated route may answer: no or another tenant's token, the token's limits, the deadline. */
const AUTH_ERRORS = [401, 403, 429, 504];

export const V1_ROUTES: RouteSpec[] = [
  {
    method: 'post',
    path: '/v1/recall',
    summary: 'Recall notes and raw records for a query',
    description:
      'Hybrid recall over the tenant’s notes (and the raw-record index unless `include: ["notes"]`), fused by rank. A `taskId` logs the returned note versions as used by that task.',
    request: ['RecallRequest'],
    response: { status: 200, schema: 'RecallResult' },
    errors: [400, ...AUTH_ERRORS, 413],
  },
  {
    method: 'post',
    path: '/v1/records',
    summary: 'Append raw records to the archive',
    description:
      'Either raw records (`{records: [...]}`, or an `application/x-ndjson` body, one record per line) validated like `nocturne archive put`, each refused record listed with its line and reason; or a conversation (`{sessionId, agentId, userId?, messages: [{role, content}]}`) archived as records with server-assigned ids and times. Resending the same raw records writes nothing new.',
    request: ['RecordsRequest', 'MessagesRequest'],
    response: { status: 200, schema: 'RecordsResult' },
    errors: [400, ...AUTH_ERRORS, 413, 503],
  },
  {
    method: 'post',
    path: '/v1/conflicts',
    summary: 'Report notes contradicted by what just happened',
    description:
      'Signals the tenant’s conflict monitor (starting it if needed); enough reports start a focused consolidation. 503 when Temporal is unreachable.',
    request: ['ConflictRequest'],
    response: { status: 202, schema: 'ConflictResult' },
    errors: [400, ...AUTH_ERRORS, 413, 503],
  },
  {
    method: 'post',
    path: '/v1/feedback',
    summary: 'Say that a recalled note helped or was wrong',
    description:
      'Archived as a `feedback` record and read by the next consolidation run: `wrong` counts as a contradiction (confidence falls; a note contradicted often enough is retired), `helped` as a success after recall.',
    request: ['FeedbackRequest'],
    response: { status: 201, schema: 'FeedbackResult' },
    errors: [400, ...AUTH_ERRORS, 404, 413, 503],
  },
  {
    method: 'get',
    path: '/v1/notes/{id}',
    summary: 'Read a note’s current version',
    description: 'The current version of one of the tenant’s notes, whatever its status, with its evidence.',
    response: { status: 200, schema: 'NoteResult' },
    errors: [...AUTH_ERRORS, 404],
  },
  {
    method: 'get',
    path: '/v1/notes/{id}/history',
    summary: 'Read every version of a note',
    description: 'All versions of one of the tenant’s notes, oldest first, and which one is current.',
    response: { status: 200, schema: 'NoteHistoryResult' },
    errors: [...AUTH_ERRORS, 404],
  },
];

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  return rest;
}

function operation(r: RouteSpec) {
  const errors = Object.fromEntries(
    r.errors.map((s) => [
      String(s),
      { description: 'an error, with a one-line reason', content: json(ref('ApiError')) },
    ]),
  );
  return {
    summary: r.summary,
    description: r.description,
    security: [{ bearer: [] }],
    ...(r.path.includes('{id}')
      ? { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] }
      : {}),
    ...(r.request
      ? {
          requestBody: {
            required: true,
            content: json(r.request.length === 1 ? ref(r.request[0]!) : { oneOf: r.request.map(ref) }),
          },
        }
      : {}),
    responses: {
      [String(r.response.status)]: { description: 'success', content: json(ref(r.response.schema)) },
      ...errors,
    },
  };
}

function json(schema: unknown) {
  return { 'application/json': { schema } };
}

/** The OpenAPI 3.1 document of the v1 API, generated from the zod contracts. */
export function openApiDocument(serverUrl?: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of V1_ROUTES) paths[r.path] = { ...paths[r.path], [r.method]: operation(r) };
  const requests = new Set(V1_ROUTES.flatMap((r) => r.request ?? []));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Nocturne agent API',
      version: '1',
      description:
        'Tenant-scoped memory for agents: append raw records, recall notes, report conflicts and feedback. Every route takes `Authorization: Bearer <tenant token>`; the token is checked before the body is read. Errors are `{error: {status, code, reason}}` with one line naming each bad field. The same operations are MCP tools at `/mcp`.',
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: Object.fromEntries(
        Object.entries(SCHEMAS).map(([name, s]) => [name, jsonSchema(s, requests.has(name) ? 'input' : 'output')]),
      ),
    },
    paths,
  };
}
