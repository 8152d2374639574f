import { indexRecords, type IndexRecordsInput } from '../src/record-index/index.ts';
import { classified, heartbeats, type ActivityDeps } from './deps.ts';

export type { IndexRecordsInput, IndexRecordsResult } from '../src/record-index/index.ts';

export function createRecordIndexActivities(deps: ActivityDeps) {
  return {
    /**
     * Indexes the raw records of a window's archive objects not indexed yet, at most
     * `maxObjects` per call, and returns the cursor to continue from. A retry skips what the
     * first attempt indexed; heartbeats come per object and while the embedder works.
     */
    indexRecords: classified((input: IndexRecordsInput) => indexRecords(deps, input, heartbeats)),
  };
}
