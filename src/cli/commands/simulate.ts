import type { Command } from 'commander';
import { loadConfig } from '../../config.ts';
import { openEvalPipeline } from '../../eval/pipeline.ts';
import {
  formatRate,
  LESSON_IDS,
  runSimulation,
  TRAP_IDS,
  type SimulationReport,
  type UsedNotesMode,
} from '../../eval/simulation/index.ts';
import { positiveInt, requireRealStack } from '../args.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine, table } from '../output.ts';

const usedNotesMode = (value: string): UsedNotesMode => {
  if (value !== 'recalled' && value !== 'applied')
    throw new UsageError(`--memory-used: expected recalled or applied, got ${JSON.stringify(value)}`);
  return value;
};

interface SimulateOptions {
  seeds: number;
  days: number;
  tasksPerDay: number;
  history: number;
  k: number;
  memoryUsed: UsedNotesMode;
  json?: boolean;
}

export function registerSimulate(program: Command): void {
  program
    .command('simulate')
    .description(
      'closed-loop check: a seeded agent with known traps, played with no memory, a bounded history and Nocturne; error recurrence and accidental retirement of correct notes',
    )
    .option('--seeds <n>', 'seeds 1..n, each a world of its own', positiveInt('--seeds'), 5)
    .option('--days <n>', 'simulated days (a nightly consolidation after each)', positiveInt('--days'), 10)
    .option('--tasks-per-day <n>', 'tasks the agent does each day', positiveInt('--tasks-per-day'), 12)
    .option('--history <n>', 'raw records the bounded history keeps', positiveInt('--history'), 50)
    .option('--k <n>', 'notes Nocturne recalls before each task', positiveInt('--k'), 5)
    .option(
      '--memory-used <mode>',
      'notes a memory_used record lists: recalled (every note recall returned) or applied (only those acted on)',
      usedNotesMode,
      'recalled',
    )
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: SimulateOptions) => {
      const config = loadConfig();
      requireRealStack(config, 'nocturne simulate');
      const pipeline = await openEvalPipeline({ env: process.env, name: 'simulate' });
      try {
        const report = await runSimulation({
          seeds: Array.from({ length: opts.seeds }, (_, i) => i + 1),
          days: opts.days,
          tasksPerDay: opts.tasksPerDay,
          historyWindow: opts.history,
          k: opts.k,
          usedNotes: opts.memoryUsed,
          pipeline,
          onProgress: (line) => process.stderr.write(`${line}\n`),
        });
        if (opts.json) printJson(report);
        else printReport(report);
      } finally {
        await pipeline.close();
      }
    });
}

const percent = (rate: number | null): string => (rate === null ? 'n/a' : `${(rate * 100).toFixed(1)}%`);

export function printReport(r: SimulationReport): void {
  const p = r.params;
  printLine(
    `closed-loop error recurrence: seeds ${p.seeds.join(',')}, ${p.days} days x ${p.tasksPerDay} tasks; bounded history ${p.historyWindow} records; Nocturne recalls k=${p.k}, memory_used lists ${p.usedNotes} notes`,
  );
  printLine();
  printLine(
    'recurrence = falls into a trap after the first fall on it (per user for a personal trap) / encounters after that first fall',
  );
  printLine(
    table(
      ['strategy', 'mean over seeds', 'pooled', ...TRAP_IDS],
      r.summaries.map((s) => [
        s.strategy,
        percent(s.meanRate),
        formatRate(s.pooled),
        ...TRAP_IDS.map((t) => formatRate(s.byTrap[t].pooled)),
      ]),
    ),
  );
  const n = r.nocturne;
  if (n) {
    printLine();
    const t = n.retirement.traps;
    printLine(
      `accidental retirement (trap lesson notes superseded, retired or contradicted): ${percent(t.rate)} of ${t.lessonNotes} notes (${t.removed} taken out of recall, ${t.reworded} of them by a rewording of the same lesson; ${t.contradicted} contradicted)`,
    );
    printLine(`  without rewordings (the lesson itself weakened or taken away): ${percent(t.harmfulRate)}`);
    printLine(
      table(
        ['lesson', 'notes', 'kept', 'contradicted', 'reworded', 'superseded', 'retired'],
        LESSON_IDS.map((l) => {
          const c = n.retirement.byLesson[l];
          return [
            l,
            c.lessonNotes,
            c.byFate.kept,
            c.byFate.contradicted,
            c.byFate.reworded,
            c.byFate.superseded,
            c.byFate.retired,
          ];
        }),
      ),
    );
    printLine(`lessons with no active note at the end: ${n.lostLessons}`);
    printLine(
      `Nocturne's repeat falls: ${n.missReasons.same_day} the same day as the first (no night yet), ${n.missReasons.no_active_note} with no active note stating the lesson, ${n.missReasons.not_in_top_k} with one that recall did not rank in the top ${p.k}`,
    );
    printLine(
      `nights: ${n.nights}, failed: ${n.failedNights}${n.firstFailure ? ` (first reason: ${n.firstFailure})` : ''}`,
    );
  }
  printLine(`wall time ${r.wallSeconds.toFixed(0)}s`);
}
