import type { NoteScope } from '../src/contracts/note.ts';

/**
 * Tenant-wide notes need evidence from at least this many distinct users. Sessions do not count:
 * one user with several sessions is still one voice, and could otherwise write memory every user
 * of the tenant reads. @default 3
 */
export const TENANT_SCOPE_MIN_INDEPENDENT = 3;

export interface EvidenceFacts {
  userIds: readonly (string | undefined)[];
  sessionIds: readonly string[];
  agentIds: readonly string[];
  taskTypes: readonly (string | undefined)[];
}

export type ScopeCheck = { ok: true } | { ok: false; reason: string };

/** A note may not be wider than its evidence. */
export function checkScopeBreadth(scope: NoteScope, evidence: EvidenceFacts): ScopeCheck {
  const all = <T>(values: readonly T[], expected: T) => values.length > 0 && values.every((v) => v === expected);
  switch (scope.level) {
    case 'session':
      return all(evidence.sessionIds, scope.key)
        ? { ok: true }
        : { ok: false, reason: `session scope ${scope.key} cites records of other sessions` };
    case 'user':
      return all(evidence.userIds, scope.key)
        ? { ok: true }
        : { ok: false, reason: `user scope ${scope.key} cites records of other users` };
    case 'agent':
      return all(evidence.agentIds, scope.key)
        ? { ok: true }
        : { ok: false, reason: `agent scope ${scope.key} cites records of other agents` };
    case 'task_type':
      return all(evidence.taskTypes, scope.key)
        ? { ok: true }
        : { ok: false, reason: `task type scope ${scope.key} cites records of other task types` };
    case 'tenant': {
      const users = new Set(evidence.userIds.filter((u) => u !== undefined)).size;
      return users >= TENANT_SCOPE_MIN_INDEPENDENT
        ? { ok: true }
        : {
            ok: false,
            reason: `tenant scope needs ${TENANT_SCOPE_MIN_INDEPENDENT} distinct users, evidence has ${users}`,
          };
    }
  }
}
