import type { EvalPipeline } from '../pipeline.ts';
import {
  boundedHistory,
  DEFAULT_HISTORY_WINDOW,
  noMemory,
  nocturneMemory,
  STRATEGIES,
  type AgentMemory,
  type NightReport,
  type Strategy,
  type UsedNotesMode,
} from './memory.ts';
import { nocturneNotes, summarizeNotes, type NocturneNotes } from './nocturne-notes.ts';
import { playWorld, type StrategyRun } from './play.ts';
import { formatRate, simulationReport, type SimulationReport } from './report.ts';
import { generateWorld, type World } from './world.ts';

/** The closed loop: the same seeded task stream played by each memory strategy, then measured. */

interface SimulationOptions {
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
  pipeline?: Pick<EvalPipeline, 'appendRecords' | 'consolidate' | 'recall' | 'db'>;
  onProgress?: (line: string) => void;
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
  const params = {
    seeds: [...options.seeds],
    days: options.days,
    tasksPerDay: options.tasksPerDay,
    historyWindow,
    k,
    usedNotes,
    strategies,
  };
  const nocturne =
    notes.length === 0
      ? null
      : summarizeNotes(
          notes,
          runs.filter((r) => r.strategy === 'nocturne'),
        );
  return simulationReport(params, worlds, runs, nocturne, (Date.now() - began) / 1000);
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
