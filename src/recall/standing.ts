import { withTenant, type Db } from '../db/index.ts';
import { selectStandingPreferences, type CandidateParams, type CandidateRow, type TextParams } from './queries.ts';
import { withNoteDistances, type PendingVector } from './read-candidates.ts';

/**
 * A user's standing preferences: how they want answers and what they always want hold for every
 * task of theirs, whatever the request is about ("user-2 wants reports as a table, not prose" for
 * "How did orders go this week?"), so a query's words are no reason to leave them out. Recall
 * returns the user's most confident current preference notes beside the ranked answer, for each
 * user the request names (its user scopes, or the user an API token is bound to).
 */

/** Standing preferences returned per answer, most confident first. @default 3 */
export const STANDING_PREFERENCES_MAX = 3;

/** The users whose standing preferences the request asks for; none for an audit (`asOf`). */
export function standingUsers(p: Pick<CandidateParams, 'scopes' | 'userId' | 'pointInTime'>): string[] {
  if (p.pointInTime) return [];
  const named = (p.scopes ?? []).filter((s) => s.level === 'user').map((s) => s.key);
  // A user-bound token sees only its own user's notes, whatever the request names.
  if (p.userId !== undefined) return named.length === 0 || named.includes(p.userId) ? [p.userId] : [];
  return [...new Set(named)];
}

/** Read while the query is being embedded; their distances (shown to the caller) once its vector is there. */
export async function readStandingPreferences(db: Db, p: TextParams, vector: PendingVector): Promise<CandidateRow[]> {
  const users = standingUsers(p);
  if (users.length === 0) return [];
  const read = withTenant(db, p.tenantId, (tx) =>
    selectStandingPreferences(tx, { ...p, queryVector: null }, users, STANDING_PREFERENCES_MAX),
  );
  const [queryVector, rows] = await Promise.all([vector, read]);
  if (rows.length === 0) return [];
  return withTenant(db, p.tenantId, (tx) => withNoteDistances(tx, p.tenantId, queryVector, rows));
}
