import type { Client } from '@temporalio/client';
import { ServiceUnavailableError } from './errors.ts';
import { reportConflict, type ReportConflictInput, type ReportConflictResult } from './report-conflict.ts';

/** What the HTTP API needs to report a conflict, without a Temporal client of its own. */
export interface ConflictReporter {
  report(input: ReportConflictInput): Promise<ReportConflictResult>;
}

export interface LazyReporterOptions {
  /** Opens a client; called on the first report, and again after a failed attempt. */
  connect: () => Promise<{ client: Client; close(): Promise<void> }>;
  /** Named in the 503 reason, e.g. `Temporal at 127.0.0.1:7233`. */
  describe: string;
  taskQueue: string;
  threshold: number;
  cooldownSeconds: number;
}

/**
 * Reports conflicts through a Temporal client opened on first use, so `nocturne serve` starts
 * and recalls while Temporal is down; a report then fails with `ServiceUnavailableError` and the
 * next one tries to connect again.
 */
export function createLazyConflictReporter(
  options: LazyReporterOptions,
): ConflictReporter & { close(): Promise<void> } {
  let connecting: ReturnType<LazyReporterOptions['connect']> | undefined;
  const client = async (): Promise<Client> => {
    connecting ??= options.connect();
    try {
      return (await connecting).client;
    } catch (error) {
      connecting = undefined;
      const why = error instanceof Error ? error.message : String(error);
      throw new ServiceUnavailableError(`${options.describe} is unreachable: ${why}`);
    }
  };
  return {
    async report(input) {
      return reportConflict(await client(), input, {
        taskQueue: options.taskQueue,
        threshold: options.threshold,
        cooldownSeconds: options.cooldownSeconds,
      });
    },
    async close() {
      const opened = await connecting?.catch(() => undefined);
      await opened?.close();
    },
  };
}
