import type { Command } from 'commander';

export function registerBench(program: Command): void {
  void program;
}
