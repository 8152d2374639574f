import { z } from 'zod';
import { PRIORITY_REASONS, priorityReasons } from '../../policies/priority.ts';
import { IsoDateTime, TenantId, Ulid } from '../contracts/ids.ts';
import type { RawRecord } from '../contracts/raw-record.ts';

/**
 * The sidecar manifest of one archive object. Sampling reads manifests, not objects, so a
 * run's cost follows its budget: everything a planner needs to choose lines is here.
 * Line numbers are 1-based, as in the object's JSONL.
 */
export const MANIFEST_VERSION = 1;

const count = z.number().int().nonnegative();
const TimeRange = z.object({ min: IsoDateTime, max: IsoDateTime });

export const PriorityEntry = z.object({
  line: z.number().int().positive(),
  id: Ulid,
  observedAt: IsoDateTime,
  reasons: z.array(z.enum(PRIORITY_REASONS)).min(1),
});
export type PriorityEntry = z.infer<typeof PriorityEntry>;

/**
 * One episode (a task, or a session without task ids) as far as this object holds it: the
 * lines to read and the signals sampling weighs, so a planner never opens the object.
 */
export const EpisodeEntry = z.object({
  key: z.string().min(1),
  agentId: z.string(),
  sessionId: z.string(),
  taskType: z.string().optional(),
  userId: z.string().optional(),
  lines: z.array(z.number().int().positive()),
  lastObservedAt: IsoDateTime,
  correction: z.boolean(),
  failure: z.boolean(),
  highValue: z.boolean(),
  memoryUsed: z.boolean(),
});
export type EpisodeEntry = z.infer<typeof EpisodeEntry>;

/** Episodes group by task id when there is one, by session otherwise. */
export function episodeKey(record: Pick<RawRecord, 'taskId' | 'sessionId'>): string {
  return record.taskId ? `task:${record.taskId}` : `session:${record.sessionId}`;
}

export const Manifest = z.object({
  version: z.literal(MANIFEST_VERSION),
  objectKey: z.string().min(1),
  tenantId: TenantId,
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  producer: z.string().min(1),
  recordCount: count,
  bytes: z.object({ compressed: count, raw: count }),
  observedAt: TimeRange,
  recordedAt: TimeRange,
  kinds: z.record(z.string(), count),
  tags: z.record(z.string(), count),
  userIds: z.array(z.string()),
  sessionIds: z.array(z.string()),
  taskIds: z.array(z.string()),
  taskTypes: z.array(z.string()),
  priority: z.array(PriorityEntry),
  /** Absent in manifests written before the episode index existed. */
  episodes: z.array(EpisodeEntry).default([]),
  createdAt: IsoDateTime,
});
export type Manifest = z.infer<typeof Manifest>;

/** The line numbers a targeted read needs, ascending. */
export function priorityLines(manifest: Manifest): number[] {
  return manifest.priority.map((p) => p.line);
}

/** Accumulates a manifest while lines are written (or re-read, to repair a missing one). */
export class ManifestBuilder {
  private recordCount = 0;
  private rawBytes = 0;
  private observed: { min: string; max: string } | undefined;
  private recorded: { min: string; max: string } | undefined;
  private readonly kinds: Record<string, number> = {};
  private readonly tags: Record<string, number> = {};
  private readonly userIds = new Set<string>();
  private readonly sessionIds = new Set<string>();
  private readonly taskIds = new Set<string>();
  private readonly taskTypes = new Set<string>();
  private readonly priority: PriorityEntry[] = [];
  private readonly episodes = new Map<string, EpisodeEntry>();

  /** `lineBytes` excludes the newline; the raw size adds it back. */
  add(record: RawRecord, line: number, lineBytes: number): void {
    this.recordCount += 1;
    this.rawBytes += lineBytes + 1;
    this.observed = widen(this.observed, record.observedAt);
    this.recorded = widen(this.recorded, record.recordedAt);
    this.kinds[record.kind] = (this.kinds[record.kind] ?? 0) + 1;
    // A tag repeated within one record counts once: counts are "records with tag".
    for (const tag of new Set(record.tags ?? [])) this.tags[tag] = (this.tags[tag] ?? 0) + 1;
    if (record.userId) this.userIds.add(record.userId);
    this.sessionIds.add(record.sessionId);
    if (record.taskId) this.taskIds.add(record.taskId);
    if (record.taskType) this.taskTypes.add(record.taskType);
    const reasons = priorityReasons(record);
    if (reasons.length > 0) this.priority.push({ line, id: record.id, observedAt: record.observedAt, reasons });
    this.addToEpisode(record, line, reasons);
  }

  private addToEpisode(record: RawRecord, line: number, reasons: readonly string[]): void {
    const key = episodeKey(record);
    const e: EpisodeEntry = this.episodes.get(key) ?? {
      key,
      agentId: record.agentId,
      sessionId: record.sessionId,
      lines: [],
      lastObservedAt: record.observedAt,
      correction: false,
      failure: false,
      highValue: false,
      memoryUsed: false,
    };
    e.lines.push(line);
    if (record.taskType) e.taskType = record.taskType;
    if (record.userId) e.userId = record.userId;
    if (Date.parse(record.observedAt) > Date.parse(e.lastObservedAt)) e.lastObservedAt = record.observedAt;
    e.correction ||= reasons.includes('user_correction');
    e.failure ||= reasons.includes('failure') || reasons.includes('negative_feedback');
    e.highValue ||= reasons.includes('high_value');
    e.memoryUsed ||= record.kind === 'memory_used';
    this.episodes.set(key, e);
  }

  finish(meta: {
    objectKey: string;
    tenantId: string;
    date: string;
    producer: string;
    compressedBytes: number;
    createdAt: string;
  }): Manifest {
    if (!this.observed || !this.recorded) throw new Error('a manifest needs at least one record');
    return {
      version: MANIFEST_VERSION,
      objectKey: meta.objectKey,
      tenantId: meta.tenantId,
      date: meta.date,
      producer: meta.producer,
      recordCount: this.recordCount,
      bytes: { compressed: meta.compressedBytes, raw: this.rawBytes },
      observedAt: this.observed,
      recordedAt: this.recorded,
      kinds: this.kinds,
      tags: this.tags,
      userIds: [...this.userIds].sort(),
      sessionIds: [...this.sessionIds].sort(),
      taskIds: [...this.taskIds].sort(),
      taskTypes: [...this.taskTypes].sort(),
      priority: this.priority,
      episodes: [...this.episodes.values()],
      createdAt: meta.createdAt,
    };
  }
}

/** Compares instants, not strings: producers may send different UTC offsets. */
function widen(range: { min: string; max: string } | undefined, at: string): { min: string; max: string } {
  if (!range) return { min: at, max: at };
  const t = Date.parse(at);
  return {
    min: t < Date.parse(range.min) ? at : range.min,
    max: t > Date.parse(range.max) ? at : range.max,
  };
}
