import type { Command } from 'commander';
import {
  SERVICE_NAMES,
  STACK,
  stackDown,
  stackEnv,
  stackStatus,
  stackUp,
  type ServiceName,
} from '../../stack/index.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine, table } from '../output.ts';

function parseOnly(value: string | undefined): ServiceName[] | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(SERVICE_NAMES as readonly string[]).includes(n));
  if (unknown.length || !names.length) {
    throw new UsageError(
      `--only: unknown service ${unknown.join(', ') || '(none given)'}; choose from ${SERVICE_NAMES.join(', ')}`,
    );
  }
  return names as ServiceName[];
}

function parseTimeout(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new UsageError(`--timeout: expected seconds > 0, got ${JSON.stringify(value)}`);
  return n;
}

const shellQuote = (v: string): string => (/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replaceAll("'", `'\\''`)}'`);

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
    .action(async (opts: { only?: string; timeout: string; quiet?: boolean; json?: boolean }) => {
      const services = parseOnly(opts.only);
      await stackUp({ ...(services ? { only: services } : {}), timeoutSeconds: parseTimeout(opts.timeout) });
      if (opts.json) printJson({ services: await stackStatus(services), env: stackEnv() });
      else if (!opts.quiet) for (const [k, v] of Object.entries(stackEnv())) printLine(`export ${k}=${shellQuote(v)}`);
    });

  stack
    .command('down')
    .description('stop the servers this stack started (by pid file)')
    .option(...only)
    .action(async (opts: { only?: string }) => {
      const services = parseOnly(opts.only);
      await stackDown(services ? { only: services } : {});
    });

  stack
    .command('status')
    .description('show each server: running or stopped, pid, endpoint, healthy')
    .option(...only)
    .option('--json', 'print one JSON document')
    .action(async (opts: { only?: string; json?: boolean }) => {
      const statuses = await stackStatus(parseOnly(opts.only));
      if (opts.json) {
        printJson({ host: STACK.host, services: statuses });
        return;
      }
      printLine(
        table(
          ['SERVICE', 'STATE', 'PID', 'HEALTHY', 'ENDPOINT'],
          statuses.map((s) => [
            s.service,
            s.state,
            s.pid ?? '-',
            s.healthy ? 'yes' : s.state === 'running' ? `no: ${s.detail ?? ''}` : 'no',
            s.endpoint,
          ]),
        ),
      );
    });
}
