import { replayBatch, type ReplayBatchInput } from '../src/consolidation/replay-batch.ts';
import { classified, heartbeats, type ActivityDeps } from './deps.ts';

export type { ReplayBatchInput, ReplayBatchResult } from '../src/consolidation/replay-batch.ts';

export function createReplayActivities(deps: ActivityDeps) {
  return {
    /** Replays one batch of sampled episodes and stores its operations; a retry returns the stored summary. */
    replayBatch: classified((input: ReplayBatchInput) => replayBatch(deps, input, heartbeats)),
  };
}
