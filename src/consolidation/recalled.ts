import { recalledNoteIds } from '../../policies/attribution.ts';
import type { Episode } from '../contracts/episode.ts';
import { selectUsageForTasks, withTenant, type Db } from '../db/index.ts';

/**
 * The notes each episode recalled, by episode key: those its archived `memory_used` records list,
 * and those the recall API logged for its task id (a request with a `taskId` writes the usage
 * log, whether or not the agent archived a `memory_used` record), each note once, in order.
 */
export async function recalledByEpisode(db: Db, tenantId: string, episodes: Episode[]): Promise<Map<string, string[]>> {
  const taskIds = [...new Set(episodes.flatMap((e) => (e.taskId ? [e.taskId] : [])))];
  const usage = await withTenant(db, tenantId, (tx) => selectUsageForTasks(tx, { taskIds }));
  const logged = new Map<string, string[]>();
  for (const row of usage) logged.set(row.taskId, [...(logged.get(row.taskId) ?? []), row.noteId]);
  return new Map(
    episodes.map((e) => {
      const archived = e.records
        .filter((r) => r.record.kind === 'memory_used')
        .flatMap((r) => recalledNoteIds(r.record.payload));
      return [e.key, [...new Set([...archived, ...((e.taskId && logged.get(e.taskId)) || [])])]];
    }),
  );
}
