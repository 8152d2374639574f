import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { memoryUsed, user, type Step, type UsedNote } from './steps.ts';
import { workSteps } from './work-steps.ts';
import { SIM_AGENT_ID, type SimTask } from './world.ts';

/**
 * What one task looks like as raw records, shaped the way the replay reads them: a correction
 * right after the agent message it contradicts, a tool error between the failed call and the
 * retry that worked, a task outcome at the end, and (Nocturne only) a `memory_used` record
 * listing the recalled notes before the agent acts.
 */

export interface EpisodeDecision {
  /** The agent remembered the lesson of the task's trap and did the right thing. */
  avoids: boolean;
  /** Notes to list in a `memory_used` record; none → no record. */
  used?: UsedNote[];
}

/** Seconds between two records of one episode. */
const STEP_SECONDS = 20;

/** The episode's steps: the user's request, then what the agent does given what it remembered. */
export function episodeSteps(task: SimTask, decision: EpisodeDecision): Step[] {
  const used = decision.used && decision.used.length > 0 ? [memoryUsed(decision.used)] : [];
  const falls = task.trap !== undefined && !decision.avoids;
  return [user(task.request), ...used, ...workSteps(task, falls)];
}

interface RecordContext {
  tenantId: string;
  /** Midnight UTC of day 0. */
  start: Date;
  /** ULIDs in time order (a monotonic factory): unique within the tenant. */
  nextId: (time: number) => string;
}

/** The task's steps as raw records, 20 seconds apart from the task's start. */
export function toRecords(task: SimTask, steps: readonly Step[], ctx: RecordContext): RawRecordInput[] {
  const begin = taskStartMs(task, ctx.start);
  return steps.map((step, i) => {
    const observed = begin + i * STEP_SECONDS * 1000;
    return {
      id: ctx.nextId(observed),
      tenantId: ctx.tenantId,
      userId: task.userId,
      agentId: SIM_AGENT_ID,
      sessionId: `session-${task.taskId}`,
      taskId: task.taskId,
      taskType: task.taskType,
      observedAt: new Date(observed).toISOString(),
      recordedAt: new Date(observed + 1000).toISOString(),
      ...step,
    };
  });
}

function taskStartMs(task: Pick<SimTask, 'day' | 'minute'>, start: Date): number {
  return start.getTime() + (task.day * 1440 + task.minute) * 60_000;
}
