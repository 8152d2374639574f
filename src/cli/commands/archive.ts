import type { Command } from 'commander';

export function registerArchive(program: Command): void {
  void program;
}
