import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEvalPipeline, type EvalPipeline } from '../../tools/eval/pipeline.ts';
import { runSimulation, TRAP_IDS, type SimulationReport, type StrategyRun } from '../../tools/eval/simulation/index.ts';
import { stackEnv } from '../../src/stack/endpoints.ts';
import { trapSubject } from '../../tools/eval/simulation/traps.ts';

// The closed loop on the real stack: a seeded agent meets known traps over a few days, with no
// memory, a bounded history and Nocturne (recall before each task, records appended and indexed
// after each task, consolidation each night through consolidateTenantWorkflow). Small on purpose: one seed, three days.

const SEED = 4;
const PARAMS = { seeds: [SEED], days: 3, tasksPerDay: 10, historyWindow: 12, k: 5 } as const;

let pipeline: EvalPipeline;
let report: SimulationReport;
const runOf = (strategy: StrategyRun['strategy']): StrategyRun =>
  report.runs.find((r) => r.strategy === strategy) as StrategyRun;

beforeAll(async () => {
  pipeline = await openEvalPipeline({ env: stackEnv(), name: 'simulation' });
  report = await runSimulation({ ...PARAMS, pipeline });
}, 180_000);

afterAll(async () => pipeline?.close());

describe('closed-loop simulation', () => {
  it('without memory, every trap met again is fallen into again', () => {
    const none = runOf('no-memory').recurrence;
    const met = TRAP_IDS.filter((t) => none.byTrap[t].encounters > 0);
    expect(met.length).toBeGreaterThanOrEqual(3);
    for (const t of met) expect(none.byTrap[t].rate, t).toBe(1);
  });

  it('with Nocturne, the agent falls into fewer traps again than without memory, on the same seed', () => {
    const none = runOf('no-memory').recurrence.overall;
    const nocturne = runOf('nocturne').recurrence.overall;
    expect(nocturne.encounters).toBe(none.encounters);
    expect(nocturne.rate as number).toBeLessThan(none.rate as number);
  });

  it('with Nocturne, a trap is avoided on a later day because recall returned a stored note that states its lesson', () => {
    const avoided = runOf('nocturne').encounters.filter((e) => e.day > 0 && !e.fell);
    const byNote = avoided.filter((e) => (e.coveringNotes?.length ?? 0) > 0);
    expect(byNote.length).toBeGreaterThan(0);
    const lessonOf = new Map(report.nocturne?.perSeed[0]?.fates.map((f) => [f.noteId, f.lesson]));
    for (const e of byNote)
      for (const noteId of e.coveringNotes ?? []) expect(lessonOf.get(noteId), `${e.taskId} ${noteId}`).toBe(e.trap);
    // Every avoidance has a reason the agent was shown: a note or a raw correction it recalled.
    for (const e of avoided)
      expect((e.coveringNotes?.length ?? 0) + (e.coveringRecords?.length ?? 0)).toBeGreaterThan(0);
  });

  it('with Nocturne, a trap met again the same day is avoided because recall returned the correction appended that morning', () => {
    const nocturne = runOf('nocturne').encounters;
    const firstFallDay = new Map<string, number>();
    const sameDay = nocturne.filter((e) => {
      const subject = trapSubject(e.trap, e.userId);
      const first = firstFallDay.get(subject);
      if (e.fell && first === undefined) firstFallDay.set(subject, e.day);
      return first === e.day && !e.fell;
    });
    expect(sameDay.length).toBeGreaterThan(0);
    for (const e of sameDay) expect(e.coveringRecords?.length, e.taskId).toBeGreaterThan(0);
  });

  it('turns the first day’s falls into notes that state their lessons', () => {
    const fallenFirstDay = new Set(
      runOf('no-memory')
        .encounters.filter((e) => e.day === 0)
        .map((e) => e.trap),
    );
    const lessons = new Set(report.nocturne?.perSeed[0]?.fates.map((f) => f.lesson));
    for (const trap of fallenFirstDay) expect(lessons.has(trap), trap).toBe(true);
  });

  it('a bounded history avoids a trap only while its lesson is within the window, and forgets it after', () => {
    const bounded = runOf('bounded-history').encounters;
    for (const e of bounded)
      expect(!e.fell, e.taskId).toBe(
        e.lessonAge !== null && e.lessonAge !== undefined && e.lessonAge <= PARAMS.historyWindow,
      );
    const forgotten = bounded.filter(
      (e) => e.fell && e.lessonAge !== null && e.lessonAge !== undefined && e.lessonAge > PARAMS.historyWindow,
    );
    expect(forgotten.length).toBeGreaterThan(0);
  });

  it('plays the same task stream for every strategy, and the same outcomes on a rerun of the seed', async () => {
    const stream = (r: StrategyRun) => r.encounters.map((e) => [e.taskId, e.trap, e.userId]);
    expect(stream(runOf('bounded-history'))).toEqual(stream(runOf('no-memory')));
    expect(stream(runOf('nocturne'))).toEqual(stream(runOf('no-memory')));
    const rerun = await runSimulation({ ...PARAMS, strategies: ['no-memory', 'bounded-history'] });
    for (const strategy of ['no-memory', 'bounded-history'] as const) {
      const again = rerun.runs.find((r) => r.strategy === strategy) as StrategyRun;
      expect(again.encounters).toEqual(runOf(strategy).encounters);
    }
  });

  // Two failures after recalling the same note, replayed in one batch, revise it twice: the
  // revisions chain instead of conflicting, so no night's consolidation fails.
  it('consolidates every night', () => {
    expect(report.nocturne?.failedNights).toBe(0);
  });
});
