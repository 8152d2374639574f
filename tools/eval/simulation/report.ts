import type { Strategy, UsedNotesMode } from './memory.ts';
import { meanOf, pooled, type Tally } from './metrics.ts';
import type { NocturneSummary } from './nocturne-notes.ts';
import type { StrategyRun } from './play.ts';
import { TRAP_IDS, type TrapId } from './traps.ts';
import type { World } from './world.ts';

/** The simulation's result: each strategy's trap recurrence over the seeds, and Nocturne's notes. */

interface StrategySummary {
  strategy: Strategy;
  /** Mean over seeds of each seed's overall rate. */
  meanRate: number | null;
  pooled: Tally;
  perSeed: Array<{ seed: number; rate: number | null; encounters: number; recurred: number }>;
  byTrap: Record<TrapId, { meanRate: number | null; pooled: Tally }>;
}

interface SimulationParams {
  seeds: number[];
  days: number;
  tasksPerDay: number;
  historyWindow: number;
  k: number;
  usedNotes: UsedNotesMode;
  strategies: Strategy[];
}

export interface SimulationReport {
  params: SimulationParams;
  worlds: Array<{ seed: number; tasks: number; trapEncounters: Record<TrapId, number>; tableUsers: string[] }>;
  summaries: StrategySummary[];
  runs: StrategyRun[];
  nocturne: NocturneSummary | null;
  wallSeconds: number;
}

/** The report of the runs played under `params` on `worlds`, Nocturne's summarized notes beside them. */
export function simulationReport(
  params: SimulationParams,
  worlds: readonly World[],
  runs: StrategyRun[],
  nocturne: NocturneSummary | null,
  wallSeconds: number,
): SimulationReport {
  return {
    params,
    worlds: worlds.map(describeWorld),
    summaries: params.strategies.map((s) =>
      summarize(
        s,
        runs.filter((r) => r.strategy === s),
      ),
    ),
    runs,
    nocturne,
    wallSeconds,
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
