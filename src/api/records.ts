import { monotonicFactory } from 'ulid';
import type { ArchiveStore } from '../archive/store.ts';
import { writeBatch } from '../archive/writer.ts';
import type { RawRecordInput, RecordKind } from '../contracts/raw-record.ts';
import { API_PRODUCER } from '../feedback/record-feedback.ts';
import type { MessagesRequest, RecordsResult } from './contract.ts';

type Role = MessagesRequest['messages'][number]['role'];

/** How a chat role is archived: who speaks decides the kind and whether the text is data or an instruction. */
const ROLE_RECORD: Record<Role, { kind: RecordKind; source: NonNullable<RawRecordInput['source']> }> = {
  user: { kind: 'user_message', source: 'user' },
  assistant: { kind: 'agent_message', source: 'agent' },
  system: { kind: 'agent_message', source: 'system' },
  tool: { kind: 'tool_result', source: 'tool' },
};

const nextId = monotonicFactory();

/**
 * Raw records for a conversation, in message order: ids are ULIDs and times one millisecond
 * apart from `now`, so the archive keeps the order the agent sent. A resent conversation gets
 * new ids (and is archived again): an agent that retries sends raw records with its own ids.
 */
export function recordsFromMessages(req: MessagesRequest & { tenantId: string }, now: Date): RawRecordInput[] {
  return req.messages.map((m, i) => {
    const observedAt = new Date(now.getTime() + i);
    return {
      id: nextId(observedAt.getTime()),
      tenantId: req.tenantId,
      agentId: req.agentId,
      sessionId: req.sessionId,
      ...(req.userId ? { userId: req.userId } : {}),
      ...(req.taskId ? { taskId: req.taskId } : {}),
      ...ROLE_RECORD[m.role],
      role: m.role,
      observedAt: observedAt.toISOString(),
      text: m.content,
    };
  });
}

/** A record without a tenant is the token's tenant's; one naming another tenant is rejected by the writer, line by line. */
export function withDefaultTenant(records: readonly unknown[], tenantId: string): unknown[] {
  return records.map((r) =>
    r !== null && typeof r === 'object' && !Array.isArray(r) && !('tenantId' in r) ? { tenantId, ...r } : r,
  );
}

/** Archives records through the writer `nocturne archive put` uses: the same validation and per-line rejections. */
export async function archiveRecords(
  archive: ArchiveStore,
  p: { tenantId: string; records: readonly unknown[]; lineNumbers?: number[]; now: Date },
): Promise<RecordsResult> {
  const result = await writeBatch(archive, {
    tenantId: p.tenantId,
    producer: API_PRODUCER,
    records: p.records,
    now: p.now,
    ...(p.lineNumbers ? { lineNumbers: p.lineNumbers } : {}),
  });
  return {
    tenantId: p.tenantId,
    accepted: result.accepted,
    objects: result.objects.map((o) => ({ objectKey: o.objectKey, status: o.status, recordCount: o.recordCount })),
    rejected: result.rejected,
  };
}

/** NDJSON bodies: one record per line, a line that is not JSON rejected with its number as `archive put` does. */
export function parseNdjson(text: string): {
  values: unknown[];
  lineNumbers: number[];
  rejected: RecordsResult['rejected'];
} {
  const values: unknown[] = [];
  const lineNumbers: number[] = [];
  const rejected: RecordsResult['rejected'] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      values.push(JSON.parse(line));
      lineNumbers.push(i + 1);
    } catch (error) {
      rejected.push({ line: i + 1, reason: `invalid JSON: ${(error as Error).message}` });
    }
  });
  return { values, lineNumbers, rejected };
}
