/**
 * Workflow time in epoch milliseconds. Inside the workflow sandbox the SDK replaces `Date` with
 * the time of the current workflow task, so this is deterministic and replays identically; it
 * must never be called from activities or other code, where it would be the machine's clock.
 */
export function workflowNowMs(): number {
  return new Date().getTime();
}

/** Workflow time as an ISO 8601 timestamp (see {@link workflowNowMs}). */
export function workflowNowIso(): string {
  return new Date(workflowNowMs()).toISOString();
}
