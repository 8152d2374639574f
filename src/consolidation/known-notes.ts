import type { KnownNote } from '../../policies/reconcile.ts';
import type { Episode } from '../contracts/episode.ts';
import { contentOf, type NoteScope, type NoteVersion } from '../contracts/note.ts';
import { selectCurrentInScopes, selectCurrentVersion, withTenant, type Db } from '../db/index.ts';

/** Active notes in the scopes these episodes touch, plus the notes they recalled (see `recalledByEpisode`). */
export async function knownNotes(
  db: Db,
  tenantId: string,
  episodes: Episode[],
  recalledNotes: ReadonlyMap<string, readonly string[]>,
): Promise<KnownNote[]> {
  const scopes = scopesOf(tenantId, episodes);
  const recalled = new Set([...recalledNotes.values()].flat());
  const versions = await withTenant(db, tenantId, async (tx) => {
    const inScope = await selectCurrentInScopes(tx, { scopes });
    const extra: NoteVersion[] = [];
    for (const noteId of recalled) {
      const v = inScope.some((n) => n.noteId === noteId)
        ? undefined
        : await selectCurrentVersion(tx, { tenantId, noteId });
      if (v && v.status !== 'erased') extra.push(v);
    }
    return [...inScope, ...extra];
  });
  return versions.map(toKnownNote);
}

/**
 * The tenant's scope and every session, user, agent and task type these episodes name, once
 * each. Sessions too: a note scoped to one session (a correction about that episode) must be
 * known when a later night replays the episode, or it is written again beside itself.
 */
function scopesOf(tenantId: string, episodes: Episode[]): NoteScope[] {
  const scopes = new Map<string, NoteScope>();
  const add = (level: NoteScope['level'], key: string | undefined) =>
    key && scopes.set(`${level}:${key}`, { level, key });
  add('tenant', tenantId);
  for (const e of episodes) {
    add('session', e.sessionId);
    add('user', e.userId);
    add('agent', e.agentId);
    add('task_type', e.taskType);
  }
  return [...scopes.values()];
}

function toKnownNote(v: NoteVersion): KnownNote {
  return {
    noteId: v.noteId,
    version: v.version,
    status: v.status,
    content: { ...contentOf(v), sourceCount: v.sourceCount },
  };
}
