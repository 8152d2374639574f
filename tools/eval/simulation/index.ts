export { runSimulation } from './run.ts';
export type { StrategyRun } from './play.ts';
export { formatRate, type SimulationReport } from './report.ts';
export { TRAP_IDS, LESSON_IDS } from './traps.ts';
export type { UsedNotesMode } from './memory.ts';
