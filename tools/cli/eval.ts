import type { Command } from 'commander';
import { ABLATION_NAMES, EVAL_DATASETS } from '../choices.ts';
import type { EvalOpts } from './actions/eval.ts';

export function registerEval(program: Command): void {
  program
    .command('eval')
    .description(
      'temporal-holdout evaluation on an external dataset: Nocturne vs no memory, recent history, raw-turn full text and raw-turn dense retrieval',
    )
    .requiredOption('--dataset <name>', `one of ${EVAL_DATASETS.join(', ')}`)
    .option(
      '--path <path>',
      'dataset folder or file (default: $NOCTURNE_DATASETS/<folder>, else ../shared/datasets/<folder>)',
    )
    .option('--k <list>', 'comma-separated ks for recall@k', '1,5,10')
    .option(
      '--cutoff <share|iso>',
      "memory from the first share of each case's records (0.8) or from records up to an instant; 1 holds nothing out",
      '0.8',
    )
    .option(
      '--cases <list>',
      '1-based positions of the cases to run, in file order, e.g. 1-3 or 4,5 (LoCoMo: 1-3 tune, 4-5 report)',
    )
    .option('--limit <n>', 'only the first n cases (of those --cases selects; a quick look)')
    .option(
      '--notes-sample <n>',
      "notes drawn (fixed seed) into notes-sample.md from the run's notes; 0 for none",
      '50',
    )
    .option(
      '--ablate <list>',
      `comma-separated pipeline switches to turn off for this run: ${ABLATION_NAMES.join(', ')}`,
    )
    .option('--out <dir>', 'where report.md, summary.json and the recall@k chart go', 'var/eval')
    .option('--keep', "keep the evaluation's note schema (to inspect notes) instead of dropping it")
    .option(
      '--cache-queries',
      'keep question vectors in the cache too, so a second run over the same data embeds almost nothing (latencies then leave out embedding the question)',
    )
    .option('--json', 'print the summary as one JSON document on stdout')
    .addHelpText(
      'after',
      '\nRuns on the real stack: eval "$(nocturne stack up)" first. Numbers and exact commands: docs/EVALUATION.md.',
    )
    .action(async (opts: EvalOpts) => (await import('./actions/eval.ts')).evalCommand(opts));
}
