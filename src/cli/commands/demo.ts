import type { Command } from 'commander';

export function registerDemo(program: Command): void {
  void program;
}
