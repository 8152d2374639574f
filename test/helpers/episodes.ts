import { createHash } from 'node:crypto';
import type { ArchivedRecord, Episode } from '../../src/contracts/episode.ts';
import { toEpisode } from '../../src/episodes/episodes.ts';
import { RawRecord, type RawRecordInput } from '../../src/contracts/raw-record.ts';

/** Archived records as if each tenant's records were one archive object, one per line. */
export function archived(records: readonly RawRecordInput[]): ArchivedRecord[] {
  return records.map((input, i) => {
    const record = RawRecord.parse({ recordedAt: input.observedAt, ...input });
    const line = JSON.stringify(record);
    return {
      record,
      ref: {
        recordId: record.id,
        objectKey: `raw/tenant=${record.tenantId}/date=${record.observedAt.slice(0, 10)}/test-1.jsonl.gz`,
        line: i + 1,
        contentHash: createHash('sha256').update(line).digest('hex'),
      },
    };
  });
}

/** Groups by task (or session), as replay does. */
export function toEpisodes(records: readonly ArchivedRecord[]): Episode[] {
  const groups = new Map<string, ArchivedRecord[]>();
  for (const r of records) {
    const key = `${r.record.tenantId}/${r.record.taskId ?? r.record.sessionId}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.entries()].map(([key, rs]) => toEpisode(key, rs));
}
