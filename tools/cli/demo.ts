import type { Command } from 'commander';
import type { DemoOptions } from './actions/demo.ts';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'the main job on the embedded default: archive a bundled sample, consolidate it on a Temporal dev server, show the notes, roll one back',
    )
    .option(
      '--data-dir <dir>',
      'where the demo keeps its archive, database and server state (wiped at start)',
      'var/demo',
    )
    .option('--keep', 'keep the Temporal dev server (and its UI) running until Ctrl-C')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: DemoOptions) => (await import('./actions/demo.ts')).demoCommand(opts));
}
