import { STACK, stackDown, stackEnv, stackStatus, stackUp, type ServiceName } from '../../stack/index.ts';
import { SERVICE_NAMES } from '../../stack/service.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine, table } from '../output.ts';

export interface StackUpOptions {
  only?: string;
  timeout: string;
  quiet?: boolean;
  json?: boolean;
}

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

/** `nocturne stack up` */
export async function stackUpCommand(opts: StackUpOptions): Promise<void> {
  const services = parseOnly(opts.only);
  await stackUp({ ...(services ? { only: services } : {}), timeoutSeconds: parseTimeout(opts.timeout) });
  if (opts.json) printJson({ services: await stackStatus(services), env: stackEnv() });
  else if (!opts.quiet) for (const [k, v] of Object.entries(stackEnv())) printLine(`export ${k}=${shellQuote(v)}`);
}

/** `nocturne stack down` */
export async function stackDownCommand(opts: { only?: string }): Promise<void> {
  const services = parseOnly(opts.only);
  await stackDown(services ? { only: services } : {});
}

/** `nocturne stack status` */
export async function stackStatusCommand(opts: { only?: string; json?: boolean }): Promise<void> {
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
        s.earlierRelease ? `${s.state} (an earlier release's: \`stack up\` restarts it)` : s.state,
        s.pid ?? '-',
        s.healthy ? 'yes' : s.state === 'running' ? `no: ${s.detail ?? ''}` : 'no',
        s.endpoint,
      ]),
    ),
  );
}
