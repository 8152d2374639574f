import type { Command } from 'commander';

export function registerNotes(program: Command): void {
  void program;
}
