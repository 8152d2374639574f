import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { LOG_DIR, RUN_DIR, logFile, pidFile } from './paths.ts';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process's command line, arguments separated by spaces ('' when it is gone or not readable). */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/**
 * The pid recorded for a service, if that process still runs and is the one we started
 * (its command line contains `marker`, so a recycled pid is never mistaken for ours).
 * A stale pid file is removed.
 */
export function runningPid(service: string, marker: string): number | undefined {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(pidFile(service), 'utf8').trim(), 10);
  } catch {
    return undefined;
  }
  const alive = Number.isInteger(pid) && pid > 0 && isAlive(pid);
  const command = alive ? cmdline(pid) : '';
  if (command.includes(marker)) return pid;
  // An empty command line is a process between fork and exec, or one exiting: not (yet) ours to
  // forget, so its pid file stays for the next look.
  if (alive && command === '') return undefined;
  rmSync(pidFile(service), { force: true });
  return undefined;
}

/**
 * Starts a long-running server detached from this process (its own process group, so it
 * outlives the CLI and can be stopped as a group), output appended to var/log/<svc>.log,
 * pid written to var/run/<svc>.pid.
 */
export function spawnDetached(
  service: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): number {
  mkdirSync(LOG_DIR, { recursive: true });
  mkdirSync(RUN_DIR, { recursive: true });
  const fd = openSync(logFile(service), 'a');
  try {
    writeFileSync(fd, `\n--- ${new Date().toISOString()} starting: ${command} ${args.join(' ')}\n`);
    const child = spawn(command, args, { detached: true, stdio: ['ignore', fd, fd], env });
    if (child.pid === undefined) throw new Error(`${service}: could not spawn ${command}`);
    child.unref();
    writeFileSync(pidFile(service), `${child.pid}\n`);
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
      return;
    } catch {
      // the group may already be gone; fall back to the single pid
    }
  }
}

/** SIGTERM to the service's process group, SIGKILL after `graceMs`; removes the pid file. */
export async function terminate(service: string, pid: number, graceMs = 15_000): Promise<'stopped' | 'killed'> {
  signalGroup(pid, 'SIGTERM');
  const result = (await waitUntil(() => !isAlive(pid), graceMs)) ? 'stopped' : 'killed';
  if (result === 'killed') {
    signalGroup(pid, 'SIGKILL');
    await waitUntil(() => !isAlive(pid), 5_000);
  }
  rmSync(pidFile(service), { force: true });
  return result;
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs = 250,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(intervalMs);
  }
}

/** True when something accepts TCP connections on host:port. */
export function portOpen(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (open: boolean): void => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The last lines of a service's log, for error messages. */
export function logTail(service: string, lines = 15): string {
  try {
    return readFileSync(logFile(service), 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
