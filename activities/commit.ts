import {
  commitBatch,
  resolveStaged,
  type BatchKey,
  type CommitBatchInput,
  type ResolveStagedInput,
} from '../src/consolidation/commit.ts';
import { embedRunClaims } from '../src/consolidation/embed-run.ts';
import { classified, heartbeats, type ActivityDeps } from './deps.ts';
import { leased } from './tenant-operation.ts';

export type { BatchKey, CommitResult, CommittedChange } from '../src/consolidation/commit.ts';

export function createCommitActivities(deps: ActivityDeps) {
  return {
    /** Renews the run's operation lease; commits a replayed batch in one transaction, idempotent on (run, batch). */
    commitBatch: classified(leased(deps, 'consolidation', (input: CommitBatchInput) => commitBatch(deps, input))),
    /** Embeds the claims of versions this run wrote that have no embedding yet. */
    reindexBatch: classified((input: BatchKey) => embedRunClaims(deps, input, heartbeats)),
    /** Approve: activate staged notes and apply held changes. Reject: retire staged notes, drop held changes. */
    resolveStaged: classified((input: ResolveStagedInput) => resolveStaged(deps, input)),
  };
}
