export {
  runSimulation,
  playWorld,
  formatRate,
  type SimulationOptions,
  type SimulationReport,
  type StrategyRun,
  type StrategySummary,
  type TracedEncounter,
} from './run.ts';
export { generateWorld, type World, type SimTask, type SimUser } from './world.ts';
export { TRAPS, TRAP_IDS, LESSONS, LESSON_IDS, type Trap, type TrapId, type LessonId } from './traps.ts';
export { STRATEGIES, DEFAULT_HISTORY_WINDOW, type Strategy, type UsedNotesMode } from './memory.ts';
