import { proxyActivities } from '@temporalio/workflow';
import type { ConsolidationActivities, IndexRecordsResult } from '../activities/index.ts';
import type { ConsolidateInput } from '../src/contracts/workflow-inputs.ts';
import { RECORD_INDEX } from './activity-options.ts';

const { indexRecords } = proxyActivities<ConsolidationActivities>(RECORD_INDEX);

/** Archive objects one indexRecords call reads at most, so each call stays well inside its timeout. */
export const INDEX_OBJECTS_PER_CALL = 8;

/** A consolidation's step: indexes the window's raw records a few objects per call, following the cursor each call returns. */
export async function indexWindowRecords(tenantId: string, window: ConsolidateInput['window']): Promise<void> {
  let after: string | null = null;
  do {
    const indexed: IndexRecordsResult = await indexRecords({
      tenantId,
      window,
      after,
      maxObjects: INDEX_OBJECTS_PER_CALL,
    });
    after = indexed.after;
  } while (after !== null);
}
