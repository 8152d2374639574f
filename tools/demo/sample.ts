import { monotonicFactory } from 'ulid';
import { seededRandom } from '../../policies/random.ts';
import type { RawRecordInput } from '../../src/contracts/raw-record.ts';
import { EPISODES } from './sample-episodes.ts';

/**
 * A small, realistic, deterministic sample of agent interactions for the demo: the scripted
 * episodes of sample-episodes.ts as raw records, as they are or repeated at scale.
 */

interface SampleOptions {
  /** First day of the sample (UTC midnight). @default 2026-11-02 */
  start?: Date;
  seed?: number;
}

/** Expands the scripted episodes into raw records, one step per 20 seconds. */
export function demoRecords(options: SampleOptions = {}): RawRecordInput[] {
  const start = (options.start ?? new Date('2026-11-02T00:00:00Z')).getTime();
  const nextId = monotonicFactory(seededRandom(options.seed ?? 7));
  const records: RawRecordInput[] = [];
  for (const ep of [...EPISODES].sort((a, b) => a.day * 1440 + a.minute - (b.day * 1440 + b.minute))) {
    const taskId = `${ep.sessionId}-t1`;
    ep.steps.forEach((step, i) => {
      const observed = start + (ep.day * 1440 + ep.minute) * 60_000 + i * 20_000;
      records.push({
        id: nextId(observed),
        tenantId: ep.tenantId,
        userId: ep.userId,
        agentId: ep.agentId,
        sessionId: ep.sessionId,
        taskId,
        taskType: ep.taskType,
        observedAt: new Date(observed).toISOString(),
        // Producers deliver with a small lag; the archive keeps both times.
        recordedAt: new Date(observed + 1500).toISOString(),
        ...step,
      });
    });
  }
  return records;
}

export const DEMO_TENANTS = ['acme', 'globex'] as const;

interface ScaledOptions {
  tenantId: string;
  /** How many times every scripted episode recurs, each with its own session, later in time. */
  copies: number;
  start?: Date;
  seed?: number;
  /** Distinct users the copies are spread over. @default 7 */
  users?: number;
}

/**
 * The scripted episodes of both demo tenants, repeated for one tenant: a larger archive with
 * the same ground truth (the same corrections, errors and injection recur), for fault tests
 * and benchmarks. Four copies per day, so the archive spans copies/4 days.
 */
export function scaledRecords(options: ScaledOptions): RawRecordInput[] {
  const start = (options.start ?? new Date('2026-11-02T00:00:00Z')).getTime();
  const nextId = monotonicFactory(seededRandom(options.seed ?? 11));
  const users = options.users ?? 7;
  const out: RawRecordInput[] = [];
  for (let c = 0; c < options.copies; c++) {
    const dayShift = Math.floor(c / 4);
    for (const ep of EPISODES) {
      ep.steps.forEach((step, i) => {
        const observed = start + ((ep.day + dayShift) * 1440 + ep.minute + (c % 4) * 5) * 60_000 + i * 20_000;
        out.push({
          id: '',
          tenantId: options.tenantId,
          userId: `${ep.userId}-${c % users}`,
          agentId: ep.agentId,
          sessionId: `${ep.sessionId}-c${c}`,
          taskId: `${ep.sessionId}-c${c}-t1`,
          taskType: ep.taskType,
          observedAt: new Date(observed).toISOString(),
          recordedAt: new Date(observed + 1500).toISOString(),
          ...step,
        });
      });
    }
  }
  out.sort((a, b) => a.observedAt.localeCompare(b.observedAt));
  for (const r of out) r.id = nextId(Date.parse(r.observedAt));
  return out;
}
