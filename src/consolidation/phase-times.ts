/**
 * Where replay spends its time: milliseconds summed per named phase over every batch a worker
 * replays. A benchmark passes one to the worker and reads it after a run; without one nothing
 * is measured.
 */
export type PhaseTimes = Map<string, number>;

/** Runs `work` and adds its duration to `phase` (also when it throws). */
export async function timed<T>(times: PhaseTimes | undefined, phase: string, work: () => Promise<T>): Promise<T> {
  if (!times) return work();
  const start = performance.now();
  try {
    return await work();
  } finally {
    times.set(phase, (times.get(phase) ?? 0) + performance.now() - start);
  }
}

/** The synchronous form of {@link timed}. */
export function timedSync<T>(times: PhaseTimes | undefined, phase: string, work: () => T): T {
  if (!times) return work();
  const start = performance.now();
  try {
    return work();
  } finally {
    times.set(phase, (times.get(phase) ?? 0) + performance.now() - start);
  }
}
