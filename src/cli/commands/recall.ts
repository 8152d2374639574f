import type { Command } from 'commander';
import { SCOPE_LEVELS } from '../../contracts/note.ts';
import { MAX_K, RECALL_SOURCES } from '../../recall/contract.ts';
import type { RecallOpts } from '../actions/recall.ts';

export function registerRecall(program: Command): void {
  program
    .command('recall')
    .description(
      "recall a tenant's notes and raw records for a query: notes (hybrid vector + full-text score, deduplicated) and indexed records (vector and full text) fused by reciprocal rank, fitted to a token budget",
    )
    .requiredOption('--tenant <id>', 'tenant whose notes to recall')
    .requiredOption('--query <text>', 'what the agent is about to do or asks')
    .option('--k <n>', `at most this many notes and records together (1-${MAX_K})`, '10')
    .option('--token-budget <n>', 'at most this many context tokens (approx. characters / 4)')
    .option(
      '--min-relevance <x>',
      'leave out notes and records matching the query less than this (0..1); nothing this relevant → an empty answer',
    )
    .option(
      '--asked-by <user>',
      'the user asking: the query\'s "I" and "my" are matched as this user (their userId in the records)',
    )
    .option('--as-of <iso>', 'point-in-time recall for audits: what was active at this instant')
    .option('--task-id <id>', 'log the returned note versions in memory usage for this task')
    .option(
      '--scope <level:key>',
      `only notes in this scope (${SCOPE_LEVELS.join('|')}:key); repeatable`,
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .option(
      '--include <source>',
      `search only this source (${RECALL_SOURCES.join('|')}); repeatable; default both`,
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      `\nExit codes:\n  0  recalled (possibly nothing)\n  1  the store or the embedder failed\n  2  bad usage or configuration`,
    )
    .action(async (opts: RecallOpts) => (await import('../actions/recall.ts')).recallCommand(opts));
}
