import type { IndexedRecord } from '../../src/db/index.ts';
import { textHash } from '../../src/embeddings/cached.ts';

/**
 * A raw-record index row written straight to the table (no archive, no embedder): a user's message
 * unless `fields` say otherwise, its told text and hash derived from speaker and text unless given,
 * and a unit vector of the given dimension.
 */
export function indexedRecordRow(
  dimension: number,
  fields: Partial<IndexedRecord> & { recordId: string },
): IndexedRecord {
  const speaker = fields.speaker ?? 'u-alice';
  const text = fields.text ?? 'A message.';
  const told = fields.told ?? `${speaker}: ${text}`;
  return {
    objectKey: 'raw/elsewhere.jsonl.gz',
    line: 1,
    contentHash: 'a'.repeat(64),
    sessionId: 's-other',
    userId: speaker,
    agentId: 'agent',
    taskType: null,
    kind: 'user_message',
    observedAt: '2026-01-01T00:00:00.000Z',
    embedding: Array.from({ length: dimension }, (_, i) => (i === 0 ? 1 : 0)),
    ...fields,
    speaker,
    text,
    told,
    contextRecordId: fields.contextRecordId ?? null,
    textHash: fields.textHash ?? textHash(told),
  };
}
