import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from './recall-bench-stats.ts';

/**
 * Start-up time of `nocturne --help` against the floor every command pays: node with tsx's
 * loader and nothing to run. The two alternate, so a busy machine slows both alike.
 */
interface CliStartupReport {
  runs: number;
  help: { medianMs: number; runsMs: number[] };
  tsxFloor: { medianMs: number; runsMs: number[] };
  /** What `--help` costs above the floor. */
  overheadMs: number;
}

const REPO = fileURLToPath(new URL('../..', import.meta.url));

function timedRun(args: string[]): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: REPO, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

export function runCliStartupBench(opts: { runs: number }): CliStartupReport {
  const help: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < opts.runs; i += 1) {
    help.push(timedRun(['bin/nocturne.mjs', '--help']));
    floor.push(timedRun(['--import', 'tsx', '-e', '']));
  }
  const round = (x: number): number => Math.round(x);
  return {
    runs: opts.runs,
    help: { medianMs: round(median(help)), runsMs: help.map(round) },
    tsxFloor: { medianMs: round(median(floor)), runsMs: floor.map(round) },
    overheadMs: round(median(help) - median(floor)),
  };
}
