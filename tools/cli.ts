import type { Command } from 'commander';
import { registerBench } from './cli/bench.ts';
import { registerDemo } from './cli/demo.ts';
import { registerEval } from './cli/eval.ts';
import { registerSimulate } from './cli/simulate.ts';

/**
 * The commands of the tools folder: the demo, evaluation, the closed-loop simulation and the
 * benchmarks. bin/nocturne.mjs adds them when this folder is present (a repository checkout);
 * the worker image ships without it, and there these commands do not exist.
 */
export function registerTools(program: Command): void {
  program.commandsGroup('Demo, evaluation and benchmarks (from the repository):');
  for (const register of [registerDemo, registerEval, registerSimulate, registerBench]) register(program);
}
