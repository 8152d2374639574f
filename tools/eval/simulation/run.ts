import { monotonicFactory } from 'ulid';
import { seededRandom } from '../../../policies/random.ts';
import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { getNoteHistory, listNotes } from '../../../src/db/index.ts';
import type { EvalPipeline } from '../pipeline.ts';
import { episodeSteps, toRecords } from './episodes.ts';
import {
  boundedHistory,
  DEFAULT_HISTORY_WINDOW,
  noMemory,
  nocturneMemory,
  STRATEGIES,
  type AgentMemory,
  type MissReason,
  type NightReport,
  type Strategy,
  type UsedNotesMode,
} from './memory.ts';
import {
  lessonNoteFates,
  lostLessons,
  meanOf,
  pooled,
  recurrence,
  retirementSummary,
  type Encounter,
  type NoteFate,
  type NoteView,
  type Recurrence,
  type RetirementSummary,
  type Tally,
} from './metrics.ts';
import { TRAP_IDS, trapSubject, type TrapId } from './traps.ts';
import { generateWorld, type World } from './world.ts';

/** The closed loop: the same seeded task stream played by each memory strategy, then measured. */

export interface SimulationOptions {
  seeds: readonly number[];
  days: number;
  tasksPerDay: number;
  /** Raw records the bounded history keeps. @default 50 */
  historyWindow?: number;
  /** Notes Nocturne recalls before each task. @default 5 */
  k?: number;
  /** @default 'recalled' */
  usedNotes?: UsedNotesMode;
  /** @default every strategy */
  strategies?: readonly Strategy[];
  /** Needed for the nocturne strategy; the others run in memory. */
  pipeline?: Pick<EvalPipeline, 'archiveRecords' | 'consolidate' | 'recall' | 'db'>;
  onProgress?: (line: string) => void;
}

/** One trap encounter with what the strategy knew at the time. */
export interface TracedEncounter extends Encounter {
  lessonAge?: number | null;
  coveringNotes?: string[];
  missReason?: MissReason;
}

/**
 * `same_day`: the first fall was earlier the same day, so no night has consolidated it yet;
 * otherwise no active note in the agent's scopes stated the lesson, or one did but recall
 * did not rank it in the top k.
 */
type RepeatFallReason = 'same_day' | MissReason;

export interface StrategyRun {
  strategy: Strategy;
  seed: number;
  tenantId: string;
  encounters: TracedEncounter[];
  recurrence: Recurrence;
  records: number;
  seconds: number;
}

interface NocturneNotes {
  seed: number;
  tenantId: string;
  activeNotes: number;
  allNotes: number;
  fates: NoteFate[];
  retirement: RetirementSummary;
  lostLessons: string[];
  nights: NightReport[];
}

export interface StrategySummary {
  strategy: Strategy;
  /** Mean over seeds of each seed's overall rate. */
  meanRate: number | null;
  pooled: Tally;
  perSeed: Array<{ seed: number; rate: number | null; encounters: number; recurred: number }>;
  byTrap: Record<TrapId, { meanRate: number | null; pooled: Tally }>;
}

export interface SimulationReport {
  params: {
    seeds: number[];
    days: number;
    tasksPerDay: number;
    historyWindow: number;
    k: number;
    usedNotes: UsedNotesMode;
    strategies: Strategy[];
  };
  worlds: Array<{ seed: number; tasks: number; trapEncounters: Record<TrapId, number>; tableUsers: string[] }>;
  summaries: StrategySummary[];
  runs: StrategyRun[];
  nocturne: {
    perSeed: NocturneNotes[];
    retirement: RetirementSummary;
    lostLessons: number;
    /** Why Nocturne fell into a trap it had fallen into before. */
    missReasons: Record<RepeatFallReason, number>;
    /** Nights whose consolidation did not complete, with the first reason seen. */
    failedNights: number;
    nights: number;
    firstFailure: string | null;
  } | null;
  wallSeconds: number;
}

export async function runSimulation(options: SimulationOptions): Promise<SimulationReport> {
  const began = Date.now();
  const strategies = [...(options.strategies ?? STRATEGIES)];
  if (strategies.includes('nocturne') && !options.pipeline)
    throw new Error('simulation: the nocturne strategy needs the pipeline (the real stack)');
  const log = options.onProgress ?? (() => {});
  const historyWindow = options.historyWindow ?? DEFAULT_HISTORY_WINDOW;
  const k = options.k ?? 5;
  const usedNotes = options.usedNotes ?? 'recalled';
  const runs: StrategyRun[] = [];
  const notes: NocturneNotes[] = [];
  const worlds: World[] = [];
  const stamp = Date.now().toString(36);
  for (const seed of options.seeds) {
    const world = generateWorld({ seed, days: options.days, tasksPerDay: options.tasksPerDay });
    worlds.push(world);
    for (const strategy of strategies) {
      const tenantId = `sim-${stamp}-s${seed}-${strategy}`;
      const nights: NightReport[] = [];
      const memory = memoryFor(strategy, { ...options, historyWindow, k, usedNotes, tenantId, world, nights, log });
      const run = await playWorld(world, memory, tenantId, log);
      runs.push(run);
      log(`seed ${seed} ${strategy}: recurrence ${formatRate(run.recurrence.overall)} (${run.seconds.toFixed(1)}s)`);
      if (strategy === 'nocturne' && options.pipeline)
        notes.push(await nocturneNotes(options.pipeline, seed, tenantId, nights));
    }
  }
  return {
    params: {
      seeds: [...options.seeds],
      days: options.days,
      tasksPerDay: options.tasksPerDay,
      historyWindow,
      k,
      usedNotes,
      strategies,
    },
    worlds: worlds.map(describeWorld),
    summaries: strategies.map((s) =>
      summarize(
        s,
        runs.filter((r) => r.strategy === s),
      ),
    ),
    runs,
    nocturne:
      notes.length === 0
        ? null
        : summarizeNotes(
            notes,
            runs.filter((r) => r.strategy === 'nocturne'),
          ),
    wallSeconds: (Date.now() - began) / 1000,
  };
}

interface MemoryContext extends SimulationOptions {
  historyWindow: number;
  k: number;
  usedNotes: UsedNotesMode;
  tenantId: string;
  world: World;
  nights: NightReport[];
  log: (line: string) => void;
}

function memoryFor(strategy: Strategy, c: MemoryContext): AgentMemory {
  switch (strategy) {
    case 'no-memory':
      return noMemory();
    case 'bounded-history':
      return boundedHistory(c.historyWindow);
    case 'nocturne':
      return nocturneMemory({
        pipeline: c.pipeline as NonNullable<SimulationOptions['pipeline']>,
        tenantId: c.tenantId,
        start: c.world.start,
        k: c.k,
        usedNotes: c.usedNotes,
        seed: c.world.seed,
        onNight: (night) => {
          c.nights.push(night);
          const outcome = night.failure ? `FAILED (${night.failure})` : 'consolidated';
          c.log(
            `seed ${c.world.seed} nocturne: night ${night.day + 1}/${c.world.days} ${outcome} in ${night.seconds.toFixed(1)}s`,
          );
        },
      });
  }
}

/**
 * Plays the world's tasks in order with one memory. Records get ids from a generator seeded
 * by the world, so a strategy's archive is the same on every run of a seed.
 */
export async function playWorld(
  world: World,
  memory: AgentMemory,
  tenantId: string,
  log: (line: string) => void = () => {},
): Promise<StrategyRun> {
  const began = Date.now();
  const nextId = monotonicFactory(seededRandom(world.seed));
  const ctx = { tenantId, start: world.start, nextId };
  const encounters: TracedEncounter[] = [];
  let records = 0;
  for (let day = 0; day < world.days; day++) {
    const today: RawRecordInput[] = [];
    for (const task of world.tasks.filter((t) => t.day === day)) {
      const recollection = await memory.beforeTask(task);
      const taskRecords = toRecords(task, episodeSteps(task, recollection), ctx);
      memory.afterTask(taskRecords);
      today.push(...taskRecords);
      if (task.trap) {
        encounters.push({
          taskId: task.taskId,
          day,
          userId: task.userId,
          trap: task.trap,
          fell: !recollection.avoids,
          ...(recollection.lessonAge !== undefined ? { lessonAge: recollection.lessonAge } : {}),
          ...(recollection.coveringNotes ? { coveringNotes: recollection.coveringNotes } : {}),
          ...(recollection.missReason ? { missReason: recollection.missReason } : {}),
        });
      }
    }
    records += today.length;
    await memory.endOfDay(day, today);
    if (memory.strategy === 'nocturne') log(`seed ${world.seed} nocturne: day ${day + 1}/${world.days} done`);
  }
  return {
    strategy: memory.strategy,
    seed: world.seed,
    tenantId,
    encounters,
    recurrence: recurrence(encounters),
    records,
    seconds: (Date.now() - began) / 1000,
  };
}

/** Every note of the tenant with its versions, then the fate of those that state a lesson. */
async function nocturneNotes(
  pipeline: NonNullable<SimulationOptions['pipeline']>,
  seed: number,
  tenantId: string,
  nights: NightReport[],
): Promise<NocturneNotes> {
  const current = [];
  for (let cursor: string | null | undefined = undefined; ;) {
    const page = await listNotes(pipeline.db, { tenantId, limit: 1000, cursor });
    current.push(...page.notes);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  const views: NoteView[] = [];
  for (const note of current) {
    const history = await getNoteHistory(pipeline.db, { tenantId, noteId: note.noteId });
    views.push({
      noteId: note.noteId,
      scope: note.scope,
      versions: history.versions.map((v) => ({
        version: v.version,
        status: v.status,
        claim: v.claim,
        confidence: v.confidence,
        contradictedAt: v.contradictedAt,
        supersededBy: v.supersededBy,
      })),
    });
  }
  const fates = lessonNoteFates(views);
  return {
    seed,
    tenantId,
    activeNotes: current.filter((n) => n.status === 'active').length,
    allNotes: current.length,
    fates,
    retirement: retirementSummary(fates),
    lostLessons: lostLessons(fates),
    nights,
  };
}

function summarize(strategy: Strategy, runs: readonly StrategyRun[]): StrategySummary {
  const byTrap = Object.fromEntries(
    TRAP_IDS.map((t) => {
      const tallies = runs.map((r) => r.recurrence.byTrap[t]);
      return [t, { meanRate: meanOf(tallies.map((x) => x.rate)), pooled: pooled(tallies) }];
    }),
  ) as StrategySummary['byTrap'];
  return {
    strategy,
    meanRate: meanOf(runs.map((r) => r.recurrence.overall.rate)),
    pooled: pooled(runs.map((r) => r.recurrence.overall)),
    perSeed: runs.map((r) => ({
      seed: r.seed,
      rate: r.recurrence.overall.rate,
      encounters: r.recurrence.overall.encounters,
      recurred: r.recurrence.overall.recurred,
    })),
    byTrap,
  };
}

function summarizeNotes(
  perSeed: NocturneNotes[],
  runs: readonly StrategyRun[],
): NonNullable<SimulationReport['nocturne']> {
  const missReasons: Record<RepeatFallReason, number> = { same_day: 0, no_active_note: 0, not_in_top_k: 0 };
  for (const run of runs) {
    const firstFallDay = new Map<string, number>();
    for (const e of run.encounters) {
      // Only repeat falls need an explanation: the first one could not have been avoided.
      const subject = trapSubject(e.trap, e.userId);
      const first = firstFallDay.get(subject);
      if (e.fell && first !== undefined)
        missReasons[first === e.day ? 'same_day' : (e.missReason ?? 'no_active_note')] += 1;
      if (e.fell && first === undefined) firstFallDay.set(subject, e.day);
    }
  }
  return {
    perSeed,
    retirement: retirementSummary(perSeed.flatMap((n) => n.fates)),
    lostLessons: perSeed.reduce((s, n) => s + n.lostLessons.length, 0),
    missReasons,
    failedNights: perSeed.reduce((s, n) => s + n.nights.filter((x) => x.failure).length, 0),
    nights: perSeed.reduce((s, n) => s + n.nights.length, 0),
    firstFailure: perSeed.flatMap((n) => n.nights.flatMap((x) => (x.failure ? [x.failure] : [])))[0] ?? null,
  };
}

function describeWorld(world: World): SimulationReport['worlds'][number] {
  const trapEncounters = Object.fromEntries(
    TRAP_IDS.map((t) => [t, world.tasks.filter((x) => x.trap === t).length]),
  ) as Record<TrapId, number>;
  return {
    seed: world.seed,
    tasks: world.tasks.length,
    trapEncounters,
    tableUsers: world.users.filter((u) => u.wantsTables).map((u) => u.userId),
  };
}

export function formatRate(t: Pick<Tally, 'rate' | 'encounters' | 'recurred'>): string {
  return t.rate === null ? 'n/a' : `${(t.rate * 100).toFixed(1)}% (${t.recurred}/${t.encounters})`;
}
