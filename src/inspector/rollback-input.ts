import { describeInputError, RollbackNoteInput } from '../contracts/workflow-inputs.ts';

/** What a button asks for: back to one version, or retire the note. */
export type RollbackRequest = { kind: 'version'; toVersion: number } | { kind: 'retire' };

export type RetireSupport = { enabled: true } | { enabled: false; why: string };

/**
 * The workflow's input for a button press, parsed by the workflow's own schema, so the page can
 * never start a rollback the workflow would refuse. `operator` is the logged-in operator (from
 * the token), never a form field.
 */
export function rollbackInput(
  target: { tenantId: string; noteId: string },
  request: RollbackRequest,
  reason: string,
  operator: string,
): { ok: true; input: Record<string, unknown> } | { ok: false; error: string } {
  const shape =
    request.kind === 'version' ? { toVersion: request.toVersion } : ({ action: 'retire' } as Record<string, unknown>);
  const parsed = RollbackNoteInput.safeParse({ ...target, ...shape, reason, operator });
  if (!parsed.success) return { ok: false, error: describeInputError(parsed.error) };
  const input = parsed.data as Record<string, unknown>;
  // A schema without `action` would strip it and roll back to a default instead of retiring.
  if (request.kind === 'retire' && input['action'] !== 'retire')
    return { ok: false, error: 'action: rollbackNoteWorkflow does not take "retire"' };
  return { ok: true, input };
}

/** Whether this build's rollbackNoteWorkflow can retire a note from one input (`action: "retire"`). */
export function retireSupport(): RetireSupport {
  const probe = rollbackInput({ tenantId: 'probe', noteId: 'probe' }, { kind: 'retire' }, 'probe', 'probe');
  return probe.ok
    ? { enabled: true }
    : { enabled: false, why: `Retiring needs a rollbackNoteWorkflow that takes action "retire" (${probe.error})` };
}
