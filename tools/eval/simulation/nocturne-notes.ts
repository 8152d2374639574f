import { getNoteHistory, listNotes } from '../../../src/db/index.ts';
import type { EvalPipeline } from '../pipeline.ts';
import type { MissReason, NightReport } from './memory.ts';
import {
  lessonNoteFates,
  lostLessons,
  retirementSummary,
  type NoteFate,
  type NoteView,
  type RetirementSummary,
} from './metrics.ts';
import type { StrategyRun } from './play.ts';
import { trapSubject } from './traps.ts';

/** What became of the notes Nocturne wrote during a simulation: per seed, then over all seeds. */

/**
 * `same_day`: the first fall was earlier the same day, so no night has consolidated it yet;
 * otherwise no active note in the agent's scopes stated the lesson, or one did but recall
 * did not rank it in the top k.
 */
type RepeatFallReason = 'same_day' | MissReason;

export interface NocturneNotes {
  seed: number;
  tenantId: string;
  activeNotes: number;
  allNotes: number;
  fates: NoteFate[];
  retirement: RetirementSummary;
  lostLessons: string[];
  nights: NightReport[];
}

export interface NocturneSummary {
  perSeed: NocturneNotes[];
  retirement: RetirementSummary;
  lostLessons: number;
  /** Why Nocturne fell into a trap it had fallen into before. */
  missReasons: Record<RepeatFallReason, number>;
  /** Nights whose consolidation did not complete, with the first reason seen. */
  failedNights: number;
  nights: number;
  firstFailure: string | null;
}

/** Every note of the tenant with its versions, then the fate of those that state a lesson. */
export async function nocturneNotes(
  pipeline: Pick<EvalPipeline, 'db'>,
  seed: number,
  tenantId: string,
  nights: NightReport[],
): Promise<NocturneNotes> {
  const current = [];
  for (let cursor: string | null | undefined = undefined; ;) {
    const page = await listNotes(pipeline.db, { tenantId, limit: 1000, cursor });
    current.push(...page.notes);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  const views: NoteView[] = [];
  for (const note of current) {
    const history = await getNoteHistory(pipeline.db, { tenantId, noteId: note.noteId });
    views.push({
      noteId: note.noteId,
      scope: note.scope,
      versions: history.versions.map((v) => ({
        version: v.version,
        status: v.status,
        claim: v.claim,
        confidence: v.confidence,
        contradictedAt: v.contradictedAt,
        supersededBy: v.supersededBy,
        sourceCount: v.sourceCount,
      })),
    });
  }
  const fates = lessonNoteFates(views);
  return {
    seed,
    tenantId,
    activeNotes: current.filter((n) => n.status === 'active').length,
    allNotes: current.length,
    fates,
    retirement: retirementSummary(fates),
    lostLessons: lostLessons(fates),
    nights,
  };
}

export function summarizeNotes(perSeed: NocturneNotes[], runs: readonly StrategyRun[]): NocturneSummary {
  const missReasons: Record<RepeatFallReason, number> = { same_day: 0, no_active_note: 0, not_in_top_k: 0 };
  for (const run of runs) {
    const firstFallDay = new Map<string, number>();
    for (const e of run.encounters) {
      // Only repeat falls need an explanation: the first one could not have been avoided.
      const subject = trapSubject(e.trap, e.userId);
      const first = firstFallDay.get(subject);
      if (e.fell && first !== undefined)
        missReasons[first === e.day ? 'same_day' : (e.missReason ?? 'no_active_note')] += 1;
      if (e.fell && first === undefined) firstFallDay.set(subject, e.day);
    }
  }
  return {
    perSeed,
    retirement: retirementSummary(perSeed.flatMap((n) => n.fates)),
    lostLessons: perSeed.reduce((s, n) => s + n.lostLessons.length, 0),
    missReasons,
    failedNights: perSeed.reduce((s, n) => s + n.nights.filter((x) => x.failure).length, 0),
    nights: perSeed.reduce((s, n) => s + n.nights.length, 0),
    firstFailure: perSeed.flatMap((n) => n.nights.flatMap((x) => (x.failure ? [x.failure] : [])))[0] ?? null,
  };
}
