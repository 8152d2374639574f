import type { TurnBefore } from '../../policies/record-recall.ts';
import { selectLastTurnsBefore, withTenant, type Db } from '../db/index.ts';

/** A record as the index keeps it, enough to tell what was said before the next one. */
export interface SaidTurn extends TurnBefore {
  sessionId: string;
  observedAt: string;
}

/**
 * What was said before each record of one archive object, in its session: the recallable record
 * before it in the object, or, for a session's first record there, the last one the index holds
 * of that session before it (an earlier append's object). Chunks of the object come in order;
 * the latest turn of each session is carried from one chunk to the next.
 */
export class TurnsBefore {
  private readonly latest = new Map<string, TurnBefore | null>();

  constructor(
    private readonly db: Db,
    private readonly tenantId: string,
  ) {}

  /** The turn before each of these records (in the object's order), undefined where none was said. */
  async of(turns: readonly SaidTurn[]): Promise<(TurnBefore | undefined)[]> {
    const firsts = new Map<string, SaidTurn>();
    for (const t of turns) if (!this.latest.has(t.sessionId) && !firsts.has(t.sessionId)) firsts.set(t.sessionId, t);
    const indexed =
      firsts.size === 0
        ? new Map<string, TurnBefore>()
        : await withTenant(this.db, this.tenantId, (tx) =>
            selectLastTurnsBefore(tx, { tenantId: this.tenantId, records: [...firsts.values()] }),
          );
    for (const sessionId of firsts.keys()) this.latest.set(sessionId, indexed.get(sessionId) ?? null);
    return turns.map((t) => {
      const before = this.latest.get(t.sessionId) ?? undefined;
      this.latest.set(t.sessionId, { recordId: t.recordId, speaker: t.speaker, text: t.text });
      return before;
    });
  }
}
