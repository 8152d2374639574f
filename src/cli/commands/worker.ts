import type { Command } from 'commander';
import { loadConfig } from '../../config.ts';
import { createWorker } from '../../worker.ts';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run a Nocturne worker on the configured task queue until SIGINT/SIGTERM (then drain and exit)')
    .action(async () => {
      const handle = await createWorker(loadConfig());
      // The SDK shuts the worker down on SIGINT/SIGTERM; run() resolves after in-flight tasks drain.
      await handle.run();
    });
}
