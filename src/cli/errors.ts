/** Bad usage or bad input: exit code 2 with a one-line reason. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;
