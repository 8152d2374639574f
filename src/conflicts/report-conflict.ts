import type { Client } from '@temporalio/client';
import { TenantId } from '../contracts/ids.ts';
import { conflictMonitorId } from '../contracts/workflow-ids.ts';
import { conflictMonitorWorkflow, conflictSignal } from '../../workflows/conflict-monitor.ts';
import { formatIssues } from '../contracts/format-issues.ts';
import { ConflictReport } from '../contracts/workflow-inputs.ts';
import { TENANT, TRIGGER } from '../contracts/search-attributes.ts';

export interface ReportConflictInput {
  tenantId: string;
  /** Notes the agent found contradicted by what just happened. */
  noteIds: string[];
  reason?: string;
}

export interface ReportConflictOptions {
  /** Task queue of the Nocturne workers. @default 'nocturne' */
  taskQueue?: string;
  /** Used only when this report starts the tenant's monitor; a running monitor keeps its own. */
  threshold?: number;
  cooldownSeconds?: number;
}

export interface ReportConflictResult {
  workflowId: string;
  /** The monitor run that received the signal (a new one when this report started it). */
  runId: string;
}

/** A report that would be dropped by the monitor is refused here, where the caller can see it. */
export class InvalidConflictReportError extends Error {
  override name = 'InvalidConflictReportError';
}

/**
 * Reports a memory conflict to the tenant's monitor, starting the monitor if it is not running
 * (signal-with-start: one call, no race between "is it running?" and "start it").
 */
export async function reportConflict(
  client: Client,
  input: ReportConflictInput,
  opts: ReportConflictOptions = {},
): Promise<ReportConflictResult> {
  const { tenantId, report } = parseConflictReport(input);
  const workflowId = conflictMonitorId(tenantId);
  const handle = await client.workflow.signalWithStart(conflictMonitorWorkflow, {
    workflowId,
    taskQueue: opts.taskQueue ?? 'nocturne',
    args: [
      {
        tenantId,
        ...(opts.threshold !== undefined ? { threshold: opts.threshold } : {}),
        ...(opts.cooldownSeconds !== undefined ? { cooldownSeconds: opts.cooldownSeconds } : {}),
      },
    ],
    signal: conflictSignal,
    signalArgs: [report],
    typedSearchAttributes: [
      { key: TENANT, value: tenantId },
      { key: TRIGGER, value: 'conflict' },
    ],
  });
  return { workflowId, runId: handle.signaledRunId };
}

/** Validates a report without sending it (callers such as the CLI check before connecting). */
export function parseConflictReport(input: ReportConflictInput): { tenantId: string; report: ConflictReport } {
  const tenant = TenantId.safeParse(input.tenantId);
  if (!tenant.success)
    throw new InvalidConflictReportError(`tenantId: ${tenant.error.issues[0]?.message ?? 'invalid'}`);
  const report = ConflictReport.safeParse({
    noteIds: input.noteIds,
    ...(input.reason !== undefined ? { reason: input.reason } : {}),
  });
  if (!report.success) {
    throw new InvalidConflictReportError(formatIssues(report.error.issues, { root: '(report)' }));
  }
  return { tenantId: tenant.data, report: report.data };
}
