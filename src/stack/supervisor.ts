import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { STACK } from './endpoints.ts';
import { embeddings, embeddings2 } from './embeddings.ts';
import { RUN_DIR, logFile } from './paths.ts';
import { postgres } from './postgres.ts';
import { cmdline, isAlive, logTail, portOpen, runningPid, sleep, terminate, waitUntil } from './process.ts';
import { s3 } from './s3.ts';
import { SERVICE_NAMES, startedByEarlierRelease, type Service, type ServiceName } from './service.ts';
import { temporal } from './temporal.ts';

export const SERVICES: Record<ServiceName, Service> = {
  temporal,
  postgres,
  s3,
  embeddings,
  'embeddings-2': embeddings2,
};

export interface UpOptions {
  /** Services to bring up. @default all */
  only?: ServiceName[];
  /** Seconds to wait for each service to become healthy. @default 120 */
  timeoutSeconds?: number;
  /** Progress lines on stderr. @default true */
  log?: (line: string) => void;
}

export interface ServiceStatus {
  service: ServiceName;
  state: 'running' | 'stopped';
  pid: number | null;
  endpoint: string;
  healthy: boolean;
  detail?: string;
  /** Running as an earlier release started it (Service.current): `stack up` restarts it. */
  earlierRelease: boolean;
  log: string;
}

const pick = (only?: ServiceName[]): Service[] => (only?.length ? only : [...SERVICE_NAMES]).map((n) => SERVICES[n]);
const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e)) || String(e);

async function checkHealth(svc: Service): Promise<string | undefined> {
  try {
    await svc.health();
    return undefined;
  } catch (error) {
    return errorText(error);
  }
}

/** Waits until the service is healthy, provisioning it on the way; fails fast when its process dies. */
async function awaitHealthy(svc: Service, pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'not answering yet';
  for (;;) {
    if (!isAlive(pid)) {
      throw new Error(
        `${svc.name} exited during start-up (last check: ${last}); log ${logFile(svc.name)}:\n${logTail(svc.name)}`,
      );
    }
    try {
      await svc.provision?.();
      await svc.health();
      return;
    } catch (error) {
      last = errorText(error);
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `${svc.name} not healthy after ${timeoutMs / 1000}s: ${last}; log ${logFile(svc.name)}:\n${logTail(svc.name)}`,
      );
    }
    await sleep(500);
  }
}

async function stopOne(svc: Service, pid: number): Promise<'stopped' | 'killed'> {
  return svc.stop ? svc.stop(pid) : terminate(svc.name, pid);
}

async function upOne(svc: Service, timeoutMs: number, log: (line: string) => void): Promise<void> {
  let existing = runningPid(svc.name, svc.marker);
  if (existing !== undefined && startedByEarlierRelease(svc, cmdline(existing))) {
    log(`${svc.name}: running (pid ${existing}) as an earlier release started it; restarting`);
    await stopOne(svc, existing);
    existing = undefined;
  }
  if (existing !== undefined) {
    // Ours and running: leave it alone if healthy, else give it the time it may still need to start.
    const problem = await checkHealth(svc);
    if (problem === undefined) {
      log(`${svc.name}: already running (pid ${existing})`);
      return;
    }
    log(`${svc.name}: running (pid ${existing}) but not healthy yet (${problem}); waiting`);
    await awaitHealthy(svc, existing, timeoutMs);
    return;
  }
  const taken = [];
  for (const port of svc.ports) if (await portOpen(STACK.host, port)) taken.push(port);
  if (taken.length) {
    throw new Error(
      `${svc.name}: port ${taken.join(', ')} on ${STACK.host} is in use by a process this stack did not start (no pid file in ${RUN_DIR}); stop it or free the port`,
    );
  }
  await svc.start();
  // A process just spawned may not show its command line yet: look again for a moment.
  let pid = runningPid(svc.name, svc.marker);
  if (pid === undefined) await waitUntil(() => (pid = runningPid(svc.name, svc.marker)) !== undefined, 2_000);
  if (pid === undefined) throw new Error(`${svc.name} exited at once; log ${logFile(svc.name)}:\n${logTail(svc.name)}`);
  log(`${svc.name}: started (pid ${pid}), waiting for health`);
  const started = Date.now();
  await awaitHealthy(svc, pid, timeoutMs);
  log(`${svc.name}: healthy after ${((Date.now() - started) / 1000).toFixed(1)}s`);
}

/**
 * Starts every (selected) service that is not running and waits until all are healthy.
 * Idempotent; concurrent callers (two `npm test` runs) are serialized by a lock file.
 * Throws naming the failing service and its log file.
 */
export async function stackUp(options: UpOptions = {}): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`stack: ${line}\n`));
  const timeoutMs = (options.timeoutSeconds ?? 120) * 1000;
  await withLock(timeoutMs, async () => {
    const results = await Promise.allSettled(pick(options.only).map((svc) => upOne(svc, timeoutMs, log)));
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [errorText(r.reason)] : []));
    if (failures.length) throw new Error(`stack up failed:\n${failures.join('\n\n')}`);
  });
}

/** For test global setup: brings the stack up (quietly unless told otherwise) and resolves when healthy. */
export async function ensureStackUp(options: { quiet?: boolean; timeoutSeconds?: number } = {}): Promise<void> {
  await stackUp({ ...(options.quiet ? { log: () => undefined } : {}), timeoutSeconds: options.timeoutSeconds ?? 180 });
}

/** Stops the services this stack started (by pid file); anything else on the ports is left alone. */
export async function stackDown(options: { only?: ServiceName[]; log?: (line: string) => void } = {}): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`stack: ${line}\n`));
  await Promise.all(
    pick(options.only).map(async (svc) => {
      const pid = runningPid(svc.name, svc.marker);
      if (pid === undefined) {
        log(`${svc.name}: not running`);
        return;
      }
      const started = Date.now();
      const how = await stopOne(svc, pid);
      log(`${svc.name}: ${how} (pid ${pid}) in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    }),
  );
}

export async function stackStatus(only?: ServiceName[]): Promise<ServiceStatus[]> {
  return Promise.all(
    pick(only).map(async (svc): Promise<ServiceStatus> => {
      const pid = runningPid(svc.name, svc.marker);
      const problem = pid === undefined ? 'not running' : await checkHealth(svc);
      return {
        service: svc.name,
        state: pid === undefined ? 'stopped' : 'running',
        pid: pid ?? null,
        endpoint: svc.endpoint,
        healthy: problem === undefined,
        ...(problem && pid !== undefined ? { detail: problem } : {}),
        earlierRelease: pid !== undefined && startedByEarlierRelease(svc, cmdline(pid)),
        log: logFile(svc.name),
      };
    }),
  );
}

/** A pid lock in var/run so that concurrent `stack up` calls do not race to start the same servers. */
async function withLock<T>(timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  mkdirSync(RUN_DIR, { recursive: true });
  const lock = path.join(RUN_DIR, 'stack.lock');
  const acquire = (): boolean => {
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
      return true;
    } catch {
      let holder = 0;
      try {
        holder = Number.parseInt(readFileSync(lock, 'utf8').trim(), 10) || 0;
      } catch {
        return false; // released between our two calls; try again
      }
      if (!holder || !isAlive(holder)) rmSync(lock, { force: true }); // stale: its holder died
      return false;
    }
  };
  if (!(await waitUntil(acquire, timeoutMs * 2, 300)))
    throw new Error(`another \`stack up\` holds ${lock}; waited ${(timeoutMs * 2) / 1000}s`);
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}
