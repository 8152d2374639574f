import type { NoteScope, NoteStatus } from '../../../src/contracts/note.ts';
import { LESSON_IDS, LESSONS, TRAP_IDS, trapSubject, type LessonId, type TrapId } from './traps.ts';

/**
 * Pure arithmetic over what happened: encounters with traps (did the agent fall in again after
 * it had already fallen in once?) and the fate of the notes that state a trap's lesson.
 */

/** One task that set a trap for its user, and what the agent did. */
export interface Encounter {
  taskId: string;
  day: number;
  userId: string;
  trap: TrapId;
  fell: boolean;
}

export interface Tally {
  /** Encounters after the first fall on the same subject (trap, or trap and user for a personal one). */
  encounters: number;
  /** Of those, how many fell in again. */
  recurred: number;
  /** recurred / encounters; null when there was no encounter after a first fall. */
  rate: number | null;
}

export interface Recurrence {
  overall: Tally;
  byTrap: Record<TrapId, Tally>;
}

const tally = (encounters: number, recurred: number): Tally => ({
  encounters,
  recurred,
  rate: encounters === 0 ? null : recurred / encounters,
});

/**
 * Error recurrence: among encounters that come after the first fall on their subject, the
 * share that fell in again. The first fall itself is not counted: no memory can prevent it.
 */
export function recurrence(encounters: readonly Encounter[]): Recurrence {
  const fallen = new Set<string>();
  const counts = new Map<TrapId, { encounters: number; recurred: number }>(
    TRAP_IDS.map((t) => [t, { encounters: 0, recurred: 0 }]),
  );
  for (const e of encounters) {
    const subject = trapSubject(e.trap, e.userId);
    if (fallen.has(subject)) {
      const c = counts.get(e.trap) as { encounters: number; recurred: number };
      c.encounters += 1;
      if (e.fell) c.recurred += 1;
    }
    if (e.fell) fallen.add(subject);
  }
  const byTrap = Object.fromEntries(
    TRAP_IDS.map((t) => {
      const c = counts.get(t) as { encounters: number; recurred: number };
      return [t, tally(c.encounters, c.recurred)];
    }),
  ) as Record<TrapId, Tally>;
  const total = [...counts.values()].reduce(
    (s, c) => ({ encounters: s.encounters + c.encounters, recurred: s.recurred + c.recurred }),
    { encounters: 0, recurred: 0 },
  );
  return { overall: tally(total.encounters, total.recurred), byTrap };
}

/** Mean of the defined values; null when none is. */
export function meanOf(values: ReadonlyArray<number | null>): number | null {
  const defined = values.filter((v): v is number => v !== null);
  return defined.length === 0 ? null : defined.reduce((s, v) => s + v, 0) / defined.length;
}

/** Counts added over seeds: the rate of everything pooled, next to the mean of per-seed rates. */
export function pooled(tallies: readonly Tally[]): Tally {
  return tally(
    tallies.reduce((s, t) => s + t.encounters, 0),
    tallies.reduce((s, t) => s + t.recurred, 0),
  );
}

/** One version of a note, as much of it as the fate needs. */
export interface VersionView {
  version: number;
  status: NoteStatus;
  claim: string;
  confidence: number;
  contradictedAt: string | null;
  supersededBy: string | null;
  /** Records behind the version; a rise over the previous version is a reinforcement. */
  sourceCount?: number;
}

export interface NoteView {
  noteId: string;
  scope: NoteScope;
  /** Oldest first. */
  versions: VersionView[];
}

/**
 * `reworded`: superseded by a note that states the same lesson in other words (two corrections
 * worded differently disagree on paper only); `superseded`: by a note that does not state it.
 */
type Fate = 'kept' | 'contradicted' | 'reworded' | 'superseded' | 'retired' | 'quarantined' | 'erased';

/** What became of one note that states a known-correct lesson. */
export interface NoteFate {
  noteId: string;
  lesson: LessonId;
  scope: NoteScope;
  status: NoteStatus;
  /** Versions that lowered its confidence while it stayed active (a contradiction). */
  contradictions: number;
  firstConfidence: number;
  lastConfidence: number;
  /** Some version lowered its confidence (a contradiction or any other downgrade). */
  confidenceLowered: boolean;
  /** Versions that confirmed it: a higher source count or confidence than the version before. */
  reinforcements: number;
  /** The worst that happened to it: removal from recall first, then a lowered confidence. */
  fate: Fate;
}

/** Notes whose claim states a known-correct lesson, with what became of them. A note that states none is not a lesson note. */
export function lessonNoteFates(notes: readonly NoteView[]): NoteFate[] {
  const lessonOf = (claim: string | undefined) =>
    claim === undefined ? undefined : LESSON_IDS.find((l) => LESSONS[l].covers(claim));
  const lessonOfNote = new Map(notes.map((n) => [n.noteId, lessonOf(n.versions[0]?.claim)]));
  return notes.flatMap((n) => {
    const first = n.versions[0];
    const last = n.versions.at(-1);
    if (!first || !last) return [];
    const lesson = lessonOf(first.claim);
    if (!lesson) return [];
    const reworded =
      last.status === 'superseded' && last.supersededBy !== null && lessonOfNote.get(last.supersededBy) === lesson;
    const contradictions = n.versions.filter(
      (v, i) =>
        i > 0 &&
        v.status === 'active' &&
        v.contradictedAt !== null &&
        v.confidence < (n.versions[i - 1] as VersionView).confidence,
    ).length;
    return [
      {
        noteId: n.noteId,
        lesson,
        scope: n.scope,
        status: last.status,
        contradictions,
        firstConfidence: first.confidence,
        lastConfidence: last.confidence,
        ...versionChanges(n.versions),
        fate: reworded ? 'reworded' : fateOf(last.status, contradictions),
      },
    ];
  });
}

function versionChanges(versions: readonly VersionView[]): Pick<NoteFate, 'confidenceLowered' | 'reinforcements'> {
  const steps = versions.slice(1).map((v, i) => ({ v, before: versions[i] as VersionView }));
  return {
    confidenceLowered: steps.some(({ v, before }) => v.confidence < before.confidence),
    reinforcements: steps.filter(
      ({ v, before }) => (v.sourceCount ?? 0) > (before.sourceCount ?? 0) || v.confidence > before.confidence,
    ).length,
  };
}

function fateOf(status: NoteStatus, contradictions: number): Fate {
  if (status === 'active' || status === 'staged') return contradictions > 0 ? 'contradicted' : 'kept';
  return status;
}

interface RetirementCounts {
  /** Notes that state a known-correct lesson (correct by construction: the world's traps are real). */
  lessonNotes: number;
  /** Of those, how many were taken out of recall (superseded, retired, quarantined), rewordings included. */
  removed: number;
  /** Of the removed, how many lost to a note stating the same lesson (the lesson stayed in recall). */
  reworded: number;
  /** Of those, how many stayed active but had their confidence lowered by a contradiction. */
  contradicted: number;
  /** (removed + contradicted) / lessonNotes; null without lesson notes. */
  rate: number | null;
  /** Like `rate` but without rewordings: notes whose lesson was weakened or lost to something else. */
  harmfulRate: number | null;
  /**
   * Notes weakened: confidence lowered at any version, or taken out of recall by anything but a
   * rewording of the same lesson (superseded by another claim, retired, quarantined, erased).
   */
  weakened: number;
  /** Notes confirmed at least once (a later version raised the source count or the confidence). */
  reinforced: number;
  byFate: Record<Fate, number>;
  /** Contradicting versions written over all lesson notes (a note can be contradicted again each night). */
  contradictionVersions: number;
}

export interface RetirementSummary extends RetirementCounts {
  /** The trap lessons only (what the recurrence rate depends on). */
  traps: RetirementCounts;
  byLesson: Record<LessonId, RetirementCounts>;
}

export function retirementSummary(fates: readonly NoteFate[]): RetirementSummary {
  const trapIds = new Set<LessonId>(TRAP_IDS);
  return {
    ...retirementCounts(fates),
    traps: retirementCounts(fates.filter((f) => trapIds.has(f.lesson))),
    byLesson: Object.fromEntries(
      LESSON_IDS.map((l) => [l, retirementCounts(fates.filter((f) => f.lesson === l))]),
    ) as Record<LessonId, RetirementCounts>,
  };
}

const TAKEN_OUT: ReadonlySet<Fate> = new Set(['reworded', 'superseded', 'retired', 'quarantined', 'erased']);

function retirementCounts(fates: readonly NoteFate[]): RetirementCounts {
  const byFate: Record<Fate, number> = {
    kept: 0,
    contradicted: 0,
    reworded: 0,
    superseded: 0,
    retired: 0,
    quarantined: 0,
    erased: 0,
  };
  for (const f of fates) byFate[f.fate] += 1;
  const removed = byFate.reworded + byFate.superseded + byFate.retired + byFate.quarantined + byFate.erased;
  const n = fates.length;
  return {
    lessonNotes: n,
    removed,
    reworded: byFate.reworded,
    contradicted: byFate.contradicted,
    rate: n === 0 ? null : (removed + byFate.contradicted) / n,
    harmfulRate: n === 0 ? null : (removed - byFate.reworded + byFate.contradicted) / n,
    weakened: fates.filter((f) => f.confidenceLowered || (f.fate !== 'reworded' && TAKEN_OUT.has(f.fate))).length,
    reinforced: fates.filter((f) => f.reinforcements > 0).length,
    byFate,
    contradictionVersions: fates.reduce((s, f) => s + f.contradictions, 0),
  };
}

/**
 * Subjects that had a lesson note at some point but none active at the end: the lesson itself
 * was lost, not just one of its notes. A personal lesson counts for its user only.
 */
export function lostLessons(fates: readonly NoteFate[]): string[] {
  const subjectOf = (f: NoteFate) =>
    LESSONS[f.lesson].perUser && f.scope.level === 'user' ? `${f.lesson}:${f.scope.key}` : f.lesson;
  const had = new Set(fates.map(subjectOf));
  const active = new Set(fates.filter((f) => f.status === 'active').map(subjectOf));
  return [...had].filter((s) => !active.has(s)).sort();
}
