import { loadConfig } from '../../../src/config.ts';
import { openEvalPipeline } from '../../eval/pipeline.ts';
import {
  formatRate,
  LESSON_IDS,
  runSimulation,
  TRAP_IDS,
  type SimulationReport,
  type UsedNotesMode,
} from '../../eval/simulation/index.ts';
import { requireRealStack } from '../args.ts';
import { printJson, printLine, table } from '../../../src/cli/output.ts';

export type { UsedNotesMode };

export interface SimulateOptions {
  seeds: number;
  days: number;
  tasksPerDay: number;
  history: number;
  k: number;
  memoryUsed: UsedNotesMode;
  keep?: boolean;
  json?: boolean;
}

/** `nocturne simulate` */
export async function simulateCommand(opts: SimulateOptions): Promise<void> {
  const config = loadConfig();
  requireRealStack(config, 'nocturne simulate');
  const pipeline = await openEvalPipeline({ env: process.env, name: 'simulate', ...(opts.keep ? { keep: true } : {}) });
  if (opts.keep) process.stderr.write(`simulate: the note schema ${pipeline.schema} is kept\n`);
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
}

const percent = (rate: number | null): string => (rate === null ? 'n/a' : `${(rate * 100).toFixed(1)}%`);

function printReport(r: SimulationReport): void {
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
  if (r.nocturne) printNocturneOutcome(r.nocturne, p.k);
  printLine(`wall time ${r.wallSeconds.toFixed(0)}s`);
}

/** What happened to Nocturne's notes: lessons retired by accident, lost, and why falls repeated. */
function printNocturneOutcome(n: NonNullable<SimulationReport['nocturne']>, k: number): void {
  printLine();
  const t = n.retirement.traps;
  printLine(
    `accidental retirement (trap lesson notes superseded, retired or contradicted): ${percent(t.rate)} of ${t.lessonNotes} notes (${t.removed} taken out of recall, ${t.reworded} of them by a rewording of the same lesson; ${t.contradicted} contradicted)`,
  );
  printLine(`  without rewordings (the lesson itself weakened or taken away): ${percent(t.harmfulRate)}`);
  printLine(
    `correct trap lesson notes weakened (confidence lowered, or superseded by another claim, retired or quarantined): ${t.weakened} of ${t.lessonNotes}`,
  );
  printLine(
    `rewordings: ${t.reworded} trap lesson notes superseded by a rewording of the same lesson; ${t.reinforced} reinforced (a later version raised the source count or confidence)`,
  );
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
    `Nocturne's repeat falls: ${n.missReasons.same_day} the same day as the first (no night yet), ${n.missReasons.no_active_note} with no active note stating the lesson, ${n.missReasons.not_in_top_k} with one that recall did not rank in the top ${k}`,
  );
  printLine(
    `nights: ${n.nights}, failed: ${n.failedNights}${n.firstFailure ? ` (first reason: ${n.firstFailure})` : ''}`,
  );
}
