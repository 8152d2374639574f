import type { Context, Hono } from 'hono';
import type { ApiEnv } from '../http.ts';
import { ApiFailure, limitBody, MAX_BODY_BYTES, readObject } from '../http.ts';
import { parseNdjson } from '../records.ts';
import type { ApiService } from '../service.ts';

/** `POST /v1/records` takes batches of records: larger than the other bodies. */
export const MAX_RECORDS_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The v1 routes. The bearer token has been checked (the `tenantId` variable) before any of these
 * reads its body; `src/api/openapi.ts` describes each of them.
 */
export function mountV1Routes(app: Hono<ApiEnv>, service: ApiService): void {
  const small = limitBody(MAX_BODY_BYTES);
  app.post('/v1/recall', small, async (c) =>
    c.json(await service.recall(c.get('grant'), await readObject(c), c.get('signal'))),
  );
  app.post('/v1/records', limitBody(MAX_RECORDS_BODY_BYTES), async (c) => {
    if (isNdjson(c.req.header('content-type')))
      return c.json(await service.appendNdjson(tenant(c), parseNdjson(await c.req.text())));
    return c.json(await service.appendRecords(tenant(c), await readObject(c)));
  });
  app.post('/v1/conflicts', small, async (c) =>
    c.json(await service.reportConflict(tenant(c), await readObject(c)), 202),
  );
  app.post('/v1/feedback', small, async (c) => c.json(await service.feedback(tenant(c), await readObject(c)), 201));
  app.get('/v1/notes/:id', async (c) => c.json(await service.getNote(c.get('grant'), noteId(c))));
  app.get('/v1/notes/:id/history', async (c) => c.json(await service.noteHistory(c.get('grant'), noteId(c))));
}

function tenant(c: Context<ApiEnv>): string {
  return c.get('tenantId');
}

function noteId(c: Context<ApiEnv>): string {
  const id = c.req.param('id') ?? '';
  if (id.length === 0 || id.length > 256) throw new ApiFailure(400, 'invalid_request', 'id: expected a note id');
  return id;
}

function isNdjson(contentType: string | undefined): boolean {
  return /^application\/(x-ndjson|jsonl|x-jsonlines)\b/i.test(contentType ?? '');
}
