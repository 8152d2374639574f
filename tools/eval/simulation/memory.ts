import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { listNotes } from '../../../src/db/index.ts';
import type { NoteScope } from '../../../src/contracts/note.ts';
import type { EvalPipeline } from '../pipeline.ts';
import type { UsedNote } from './steps.ts';
import { TRAPS } from './traps.ts';
import { SIM_AGENT_ID, type SimTask } from './world.ts';

/**
 * The three ways the simulated agent remembers. Each answers one question before a task —
 * does it know how to avoid this task's trap? — from what it was allowed to keep.
 */

export const STRATEGIES = ['no-memory', 'bounded-history', 'nocturne'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** Why a Nocturne agent fell into a trap it had met before. */
export type MissReason = 'no_active_note' | 'not_in_top_k';

interface Recollection {
  avoids: boolean;
  /** Notes to list in the task's `memory_used` record (Nocturne). */
  used?: UsedNote[];
  /** Bounded history: records since the latest lesson about this trap in the agent's whole past (null: never seen). */
  lessonAge?: number | null;
  /** Nocturne: the recalled notes that state the lesson. */
  coveringNotes?: string[];
  /** Nocturne: recalled raw records (a correction or an error, indexed when appended) that state it. */
  coveringRecords?: string[];
  missReason?: MissReason;
}

export interface AgentMemory {
  readonly strategy: Strategy;
  beforeTask(task: SimTask): Promise<Recollection>;
  /** The task's records, once it is over. */
  afterTask(records: readonly RawRecordInput[]): Promise<void> | void;
  /** The day is over: what the day's records become overnight. */
  endOfDay(day: number, records: readonly RawRecordInput[]): Promise<void>;
}

export function noMemory(): AgentMemory {
  return {
    strategy: 'no-memory',
    beforeTask: async () => ({ avoids: false }),
    afterTask: () => {},
    endOfDay: async () => {},
  };
}

/** Records a bounded history keeps by default: about seven episodes, under a day of work. @default 50 */
export const DEFAULT_HISTORY_WINDOW = 50;

/**
 * The last `window` raw records in the agent's context, nothing else. It avoids a trap when a
 * correction or error in that window states the lesson (from the same user, for a personal
 * trap): the same `covers` test Nocturne's notes must pass, on the raw text.
 */
export function boundedHistory(window: number = DEFAULT_HISTORY_WINDOW): AgentMemory {
  const past: RawRecordInput[] = [];
  return {
    strategy: 'bounded-history',
    async beforeTask(task) {
      const age = lessonAge(past, task);
      return { avoids: age !== null && age <= window, lessonAge: age };
    },
    afterTask(records) {
      past.push(...records);
    },
    endOfDay: async () => {},
  };
}

/**
 * How many records back the latest lesson about the task's trap is (1 = the last record), or
 * null when the agent never saw one. Only corrections and errors teach: they are what a
 * person or a tool said went wrong.
 */
export function lessonAge(past: readonly RawRecordInput[], task: SimTask): number | null {
  if (!task.trap) return null;
  const trap = TRAPS[task.trap];
  for (let i = past.length - 1; i >= 0; i--) {
    const r = past[i] as RawRecordInput;
    if (teaches(r, task) && trap.covers(r.text ?? '')) return past.length - i;
  }
  return null;
}

/** A correction or an error (what a person or a tool said went wrong), from the task's user for a personal trap. */
function teaches(r: { kind: string; userId?: string | null | undefined }, task: SimTask): boolean {
  if (r.kind !== 'user_correction' && r.kind !== 'error') return false;
  return !(task.trap && TRAPS[task.trap].perUser && r.userId !== task.userId);
}

/** Which recalled notes the `memory_used` record lists: every note recall returned, or only those the agent acted on. */
export type UsedNotesMode = 'recalled' | 'applied';

interface NocturneMemoryOptions {
  pipeline: Pick<EvalPipeline, 'appendRecords' | 'consolidate' | 'recall' | 'db'>;
  tenantId: string;
  start: Date;
  /** Notes recalled before each task. @default 5 */
  k?: number;
  /** @default 'recalled' */
  usedNotes?: UsedNotesMode;
  /** Sampling seed of the nightly runs (every episode is in budget, so it only orders them). */
  seed?: number;
  /** Called after each night's consolidation, with the reason when it did not complete. */
  onNight?: (night: NightReport) => void;
}

export interface NightReport {
  day: number;
  seconds: number;
  failure?: string;
}

/** The deepest cause of a failed workflow (workflow → activity → application failure) names what went wrong. */
function innermostReason(error: unknown): string {
  let reason = error instanceof Error ? error.message : String(error);
  for (
    let e = (error as { cause?: unknown } | undefined)?.cause;
    e instanceof Error;
    e = (e as { cause?: unknown }).cause
  ) {
    const type = (e as { type?: unknown }).type;
    reason = typeof type === 'string' && type ? `${type}: ${e.message}` : e.message || reason;
  }
  return reason;
}

/** Scopes the agent reads: this user, this agent, this task type, the tenant. */
function recallScopes(task: SimTask, tenantId: string): NoteScope[] {
  return [
    { level: 'user', key: task.userId },
    { level: 'agent', key: SIM_AGENT_ID },
    { level: 'task_type', key: task.taskType },
    { level: 'tenant', key: tenantId },
  ];
}

/**
 * Nocturne: recall before every task (logged for the task), act on a recalled note, a standing
 * preference of the user or a raw correction that states the lesson; append each task's records when it ends (the records API
 * indexes them for recall at once) and consolidate the day's records into notes at night.
 */
export function nocturneMemory(options: NocturneMemoryOptions): AgentMemory {
  const { pipeline, tenantId } = options;
  const k = options.k ?? 5;
  return {
    strategy: 'nocturne',
    async beforeTask(task) {
      const now = new Date(options.start.getTime() + (task.day * 1440 + task.minute) * 60_000);
      const answer = await pipeline.recall(
        { tenantId, query: task.request, k, taskId: task.taskId, scope: recallScopes(task, tenantId) },
        now,
      );
      const covers = (claim: string) => (task.trap ? TRAPS[task.trap].covers(claim) : false);
      // The user's standing preferences are read with the answer, as an agent's prompt would hold them.
      const shown = [...answer.notes, ...answer.preferences];
      const covering = shown.filter((n) => covers(n.claim));
      const listed = (options.usedNotes ?? 'recalled') === 'recalled' ? shown : covering;
      const used = listed.map((n) => ({
        noteId: n.noteId,
        version: n.version,
        rank: n.rank,
        score: Number(n.score.toFixed(4)),
      }));
      const coveringRecords = answer.records.filter((r) => teaches(r, task) && covers(r.text));
      const avoids = covering.length > 0 || coveringRecords.length > 0;
      const missReason = task.trap && !avoids ? await whyMissed(options, task) : undefined;
      return {
        avoids,
        used,
        coveringNotes: covering.map((n) => n.noteId),
        coveringRecords: coveringRecords.map((r) => r.recordId),
        ...(missReason ? { missReason } : {}),
      };
    },
    async afterTask(records) {
      const appended = await pipeline.appendRecords(tenantId, [...records]);
      if (appended.rejected > 0) throw new Error(`simulation: the archive rejected ${appended.rejected} records`);
    },
    async endOfDay(day) {
      const began = Date.now();
      const to = new Date(options.start.getTime() + (day + 1) * 86_400_000 - 1).toISOString();
      let failure: string | undefined;
      try {
        const run = await pipeline.consolidate(tenantId, { to, seed: options.seed ?? 1 });
        if (run.status !== 'completed') failure = `ended ${run.status}: ${run.leftover.reason ?? 'no reason given'}`;
      } catch (error) {
        // A failed night is an outcome to measure, as in production: the agent goes on with
        // the notes it has, and the next night tries again over the whole archive.
        failure = innermostReason(error);
      }
      options.onNight?.({ day, seconds: (Date.now() - began) / 1000, ...(failure ? { failure } : {}) });
    },
  };
}

/** An active note in the agent's scopes states the lesson, yet recall did not put it in the top k. */
async function whyMissed(options: NocturneMemoryOptions, task: SimTask): Promise<MissReason> {
  const trap = TRAPS[task.trap as NonNullable<SimTask['trap']>];
  const scopes = recallScopes(task, options.tenantId);
  const inScope = (s: NoteScope) => scopes.some((x) => x.level === s.level && x.key === s.key);
  const page = await listNotes(options.pipeline.db, { tenantId: options.tenantId, status: 'active', limit: 1000 });
  return page.notes.some((n) => inScope(n.scope) && trap.covers(n.claim)) ? 'not_in_top_k' : 'no_active_note';
}
