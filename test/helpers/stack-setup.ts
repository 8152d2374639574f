/**
 * vitest globalSetup of the integration project: makes sure the real local stack runs,
 * starting it when it does not. A stack that cannot start fails the run — never a skip.
 * The stack is left running afterwards (developers keep it up; .ci/run stops it).
 */
import { ensureStackUp } from '../../src/stack/index.ts';

export default async function setup(): Promise<void> {
  try {
    await ensureStackUp({ quiet: !process.env['NOCTURNE_STACK_VERBOSE'] });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`integration tests need the local stack (nocturne stack up) and it could not start:\n${reason}`);
  }
}
