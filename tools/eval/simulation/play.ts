import { monotonicFactory } from 'ulid';
import { seededRandom } from '../../../policies/random.ts';
import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { episodeSteps, toRecords } from './episodes.ts';
import type { AgentMemory, MissReason, Strategy } from './memory.ts';
import { recurrence, type Encounter, type Recurrence } from './metrics.ts';
import type { World } from './world.ts';

/** One trap encounter with what the strategy knew at the time. */
interface TracedEncounter extends Encounter {
  lessonAge?: number | null;
  coveringNotes?: string[];
  coveringRecords?: string[];
  missReason?: MissReason;
}

export interface StrategyRun {
  strategy: Strategy;
  seed: number;
  tenantId: string;
  encounters: TracedEncounter[];
  recurrence: Recurrence;
  records: number;
  seconds: number;
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
      await memory.afterTask(taskRecords);
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
          ...(recollection.coveringRecords ? { coveringRecords: recollection.coveringRecords } : {}),
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
