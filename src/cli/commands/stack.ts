import type { Command } from 'commander';

export function registerStack(program: Command): void {
  void program;
}
