import type { Client } from '@temporalio/client';

/** One activity attempt that completed: when it ran (ms since epoch) and its type. */
export interface ActivitySpan {
  type: string;
  start: number;
  end: number;
}

/** What one workflow id's chain of executions (following continue-as-new) recorded. */
export interface ExecutionChain {
  executions: number;
  maxEvents: number;
  /** First event to last event of the chain, ms since epoch. */
  start: number;
  end: number;
  activities: ActivitySpan[];
}

type HistoryEvent = NonNullable<
  Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>['events']
>[number];

const eventMs = (e: HistoryEvent): number =>
  Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);

/** Reads every execution of `workflowId` from its first run on, with its completed activity spans. */
export async function readExecutionChain(client: Client, workflowId: string): Promise<ExecutionChain> {
  const chain: ExecutionChain = { executions: 0, maxEvents: 0, start: Infinity, end: 0, activities: [] };
  const latest = await client.workflow.getHandle(workflowId).fetchHistory();
  let runId: string | null | undefined =
    latest.events?.[0]?.workflowExecutionStartedEventAttributes?.firstExecutionRunId;
  while (runId) {
    const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    chain.executions += 1;
    chain.maxEvents = Math.max(chain.maxEvents, events.length);
    if (events.length > 0) {
      chain.start = Math.min(chain.start, eventMs(events[0] as HistoryEvent));
      chain.end = Math.max(chain.end, eventMs(events.at(-1) as HistoryEvent));
    }
    chain.activities.push(...activitySpans(events));
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  }
  return chain;
}

function activitySpans(events: readonly HistoryEvent[]): ActivitySpan[] {
  const scheduledType = new Map<number, string>();
  const started = new Map<number, number>();
  const spans: ActivitySpan[] = [];
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) scheduledType.set(Number(e.eventId), scheduled.activityType?.name ?? '');
    const start = e.activityTaskStartedEventAttributes;
    if (start) started.set(Number(start.scheduledEventId), eventMs(e));
    const done = e.activityTaskCompletedEventAttributes;
    const at = done ? started.get(Number(done.scheduledEventId)) : undefined;
    if (done && at !== undefined)
      spans.push({ type: scheduledType.get(Number(done.scheduledEventId)) ?? '', start: at, end: eventMs(e) });
  }
  return spans;
}

/** Seconds covered by at least one span: with runs in parallel, time when some activity was working. */
export function busySeconds(spans: readonly ActivitySpan[]): number {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let total = 0;
  let from = -Infinity;
  let to = -Infinity;
  for (const s of sorted) {
    if (s.start > to) {
      if (to > from) total += to - from;
      from = s.start;
      to = s.end;
    } else to = Math.max(to, s.end);
  }
  if (to > from) total += to - from;
  return total / 1000;
}
