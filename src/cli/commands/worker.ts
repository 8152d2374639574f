import type { Command } from 'commander';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run a Nocturne worker on the configured task queue until SIGINT/SIGTERM (then drain and exit)')
    .action(async () => {
      const [{ loadConfig }, { createWorker }] = await Promise.all([
        import('../../config.ts'),
        import('../../worker.ts'),
      ]);
      const handle = await createWorker(loadConfig());
      // The SDK shuts the worker down on SIGINT/SIGTERM; run() resolves after in-flight tasks drain.
      await handle.run();
    });
}
