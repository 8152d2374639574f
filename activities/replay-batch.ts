import { replayBatch, type ReplayBatchInput } from '../src/consolidation/replay-batch.ts';
import { classified, heartbeats, type ActivityDeps } from './deps.ts';
import { leased } from './tenant-operation.ts';

export type { ReplayBatchInput, ReplayBatchResult } from '../src/consolidation/replay-batch.ts';

export function createReplayActivities(deps: ActivityDeps) {
  return {
    /** Renews the run's operation lease; replays one batch of sampled episodes and stores its operations; a retry returns the stored summary. */
    replayBatch: classified(
      leased(deps, 'consolidation', (input: ReplayBatchInput) => replayBatch(deps, input, heartbeats)),
    ),
  };
}
