import type { Command } from 'commander';
import { SERVICE_NAMES } from '../../stack/service.ts';
import type { StackUpOptions } from '../actions/stack.ts';

const actions = () => import('../actions/stack.ts');

export function registerStack(program: Command): void {
  const stack = program
    .command('stack')
    .description(
      'run the real local servers: Temporal, PostgreSQL + pgvector, SeaweedFS S3, embeddings (see docs/STACK.md)',
    );
  const only = ['--only <services>', `comma-separated subset of ${SERVICE_NAMES.join(',')}`] as const;

  stack
    .command('up')
    .description('start what is not running, wait until healthy, print the endpoints as `export` lines')
    .option(...only)
    .option('--timeout <seconds>', 'health wait per service', '120')
    .option('--quiet', 'print no endpoints')
    .option('--json', 'print one JSON document: services and environment')
    .action(async (opts: StackUpOptions) => (await actions()).stackUpCommand(opts));

  stack
    .command('down')
    .description('stop the servers this stack started (by pid file)')
    .option(...only)
    .action(async (opts: { only?: string }) => (await actions()).stackDownCommand(opts));

  stack
    .command('status')
    .description('show each server: running or stopped, pid, endpoint, healthy')
    .option(...only)
    .option('--json', 'print one JSON document')
    .action(async (opts: { only?: string; json?: boolean }) => (await actions()).stackStatusCommand(opts));
}
