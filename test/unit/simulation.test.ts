import { monotonicFactory } from 'ulid';
import { describe, expect, it } from 'vitest';
import { attributeEpisode } from '../../policies/attribution.ts';
import { seededRandom } from '../../policies/random.ts';
import { validateProposal, type ResolvedRecord } from '../../policies/validation.ts';
import type { Episode } from '../../src/contracts/episode.ts';
import type { RawRecordInput } from '../../src/contracts/raw-record.ts';
import { createDeterministicEngine } from '../../src/engine/deterministic.ts';
import { episodeSteps, toRecords, type EpisodeDecision } from '../../tools/eval/simulation/episodes.ts';
import { CORRECTIONS } from '../../tools/eval/simulation/work-steps.ts';
import { boundedHistory, lessonAge, noMemory } from '../../tools/eval/simulation/memory.ts';
import {
  lessonNoteFates,
  lostLessons,
  meanOf,
  pooled,
  recurrence,
  retirementSummary,
  type Encounter,
  type NoteView,
  type VersionView,
} from '../../tools/eval/simulation/metrics.ts';
import { playWorld } from '../../tools/eval/simulation/play.ts';
import { LESSONS, TRAP_IDS, TRAPS, trapsCoveredBy, type TrapId } from '../../tools/eval/simulation/traps.ts';
import { TASK_KINDS } from '../../tools/eval/simulation/task-kinds.ts';
import { generateWorld, trapOf, type SimTask, type World } from '../../tools/eval/simulation/world.ts';
import { archived, toEpisodes } from '../helpers/episodes.ts';

const TENANT = 'sim-unit';
const world = generateWorld({ seed: 4, days: 6, tasksPerDay: 12 });

function recordsOf(w: World, tasks: readonly SimTask[], decide: (t: SimTask) => EpisodeDecision): RawRecordInput[] {
  const ctx = { tenantId: TENANT, start: w.start, nextId: monotonicFactory(seededRandom(w.seed)) };
  return tasks.flatMap((t) => toRecords(t, episodeSteps(t, decide(t)), ctx));
}

/** What the nightly replay would propose from these records, with each proposal's validation verdict. */
async function replay(records: RawRecordInput[]) {
  const recs = archived(records);
  const episodes = toEpisodes(recs);
  const resolved = new Map<string, ResolvedRecord>(
    recs.map((r) => [r.record.id, { record: r.record, contentHash: r.ref.contentHash }]),
  );
  const succeeded = episodes.filter((e) => e.records.some((r) => r.record.outcome?.status === 'success'));
  const findings = episodes.flatMap((e) => attributeEpisode(e, succeeded));
  const { proposals } = await createDeterministicEngine().propose({
    episodes,
    findings,
    activeNotes: [],
    now: new Date('2026-10-01T00:00:00Z'),
  });
  return {
    findings,
    proposals: proposals.map((p) => ({ ...p, verdict: validateProposal(p, TENANT, resolved).verdict })),
  };
}

const firstTaskWith = (trap: TrapId): SimTask => {
  const task = generateWorld({ seed: 4, days: 10, tasksPerDay: 12 }).tasks.find((t) => t.trap === trap);
  if (!task) throw new Error(`no ${trap} task in the fixture world`);
  return task;
};

describe('simulated world', () => {
  it('is the same task stream for the same seed and a different one for another seed', () => {
    const again = generateWorld({ seed: 4, days: 6, tasksPerDay: 12 });
    expect(again).toEqual(world);
    const other = generateWorld({ seed: 5, days: 6, tasksPerDay: 12 });
    expect(other.tasks.map((t) => t.request)).not.toEqual(world.tasks.map((t) => t.request));
  });

  it('has the requested number of tasks, in time order, one per minute slot', () => {
    expect(world.tasks).toHaveLength(6 * 12);
    const times = world.tasks.map((t) => t.day * 1440 + t.minute);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(times).size).toBe(times.length);
    expect(new Set(world.tasks.map((t) => t.taskId)).size).toBe(world.tasks.length);
  });

  it('sets each trap on its own task kind, and the table trap only for users who want tables', () => {
    for (const task of world.tasks) {
      const user = world.users.find((u) => u.userId === task.userId);
      expect(task.trap).toBe(user ? trapOf(task.kind, user) : undefined);
      if (task.trap) expect(TRAPS[task.trap].taskTypes).toContain(task.taskType);
    }
    expect(world.users.some((u) => u.wantsTables)).toBe(true);
    expect(world.users.some((u) => !u.wantsTables)).toBe(true);
    const kinds = new Set(generateWorld({ seed: 4, days: 10, tasksPerDay: 12 }).tasks.map((t) => t.kind));
    expect([...kinds].sort()).toEqual([...TASK_KINDS].sort());
  });

  it('words requests without standing-preference markers, so a request never reads as a preference', () => {
    for (const task of generateWorld({ seed: 9, days: 10, tasksPerDay: 12 }).tasks) {
      expect(task.request).not.toMatch(/\b(always|never|prefer|i want|i like|i need)\b/i);
    }
  });
});

describe('covers predicates', () => {
  it('recognise every wording of each lesson, and nothing else', () => {
    for (const text of CORRECTIONS.billing_cents) expect(trapsCoveredBy(text)).toEqual(['billing_cents']);
    for (const text of CORRECTIONS.report_tables) expect(trapsCoveredBy(text)).toEqual(['report_tables']);
    expect(trapsCoveredBy('crm.export: upstream timeout after 30s (pageSize=1000)')).toEqual(['crm_timeout']);
    expect(trapsCoveredBy("invalid date '03/12/2026': expected YYYY-MM-DD")).toEqual(['date_format']);
    for (const text of CORRECTIONS.refund_dollars) {
      expect(trapsCoveredBy(text)).toEqual([]);
      expect(LESSONS.refund_dollars.covers(text)).toBe(true);
    }
    for (const unrelated of [
      'vendors.get: service unavailable (HTTP 503)',
      'Northwind offers net 30 payment terms.',
      'The billing API is slow on Mondays.',
      'Export timed out.',
    ]) {
      expect(trapsCoveredBy(unrelated)).toEqual([]);
    }
  });

  it('accept the notes the nightly replay writes from a fall, and those notes pass validation', async () => {
    for (const trap of TRAP_IDS) {
      const task = firstTaskWith(trap);
      const { proposals } = await replay(recordsOf(world, [task], () => ({ avoids: false })));
      const lessons = proposals.filter((p) => TRAPS[trap].covers(p.content.claim));
      expect(lessons.length, `${trap}: ${proposals.map((p) => p.content.claim).join(' | ')}`).toBeGreaterThan(0);
      expect(lessons.map((p) => p.verdict)).toContain('accept');
    }
  });

  it('find no lesson in an episode where the agent avoided the trap', async () => {
    const tasks = TRAP_IDS.map(firstTaskWith);
    const { findings, proposals } = await replay(recordsOf(world, tasks, () => ({ avoids: true })));
    expect(findings.filter((f) => f.type === 'tool_error' || f.type === 'factual_conflict')).toEqual([]);
    expect(proposals.filter((p) => trapsCoveredBy(p.content.claim).length > 0)).toEqual([]);
  });

  it('keep the personal lesson personal: a table correction becomes a note scoped to its user', async () => {
    const task = firstTaskWith('report_tables');
    const { proposals } = await replay(recordsOf(world, [task], () => ({ avoids: false })));
    const note = proposals.find((p) => TRAPS.report_tables.covers(p.content.claim));
    expect(note?.content.scope).toEqual({ level: 'user', key: task.userId });
  });
});

describe('memory_used records', () => {
  it('list the recalled notes the way the replay reads them, so a later failure contradicts them', async () => {
    const outage = generateWorld({ seed: 4, days: 10, tasksPerDay: 12 }).tasks.find((t) => t.outage) as SimTask;
    const used = [
      { noteId: 'N-1', version: 2, rank: 1, score: 0.5 },
      { noteId: 'N-2', version: 1, rank: 2, score: 0.4 },
    ];
    const { findings } = await replay(recordsOf(world, [outage], () => ({ avoids: false, used })));
    expect(findings.find((f) => f.type === 'outdated_constraint')?.noteIds).toEqual(['N-1', 'N-2']);
  });

  it('are left out when nothing was recalled', () => {
    const steps = episodeSteps(world.tasks[0] as SimTask, { avoids: false, used: [] });
    expect(steps.map((s) => s.kind)).not.toContain('memory_used');
  });
});

describe('bounded history', () => {
  const task = firstTaskWith('billing_cents');
  const correction: RawRecordInput = {
    ...(recordsOf(world, [task], () => ({ avoids: false })).find(
      (r) => r.kind === 'user_correction',
    ) as RawRecordInput),
  };
  const filler = (n: number): RawRecordInput[] =>
    Array.from({ length: n }, () => ({ ...correction, kind: 'agent_message', text: 'Done.' }));

  it('counts how far back the latest lesson is, and ignores lessons that are not corrections or errors', () => {
    expect(lessonAge([correction, ...filler(4)], task)).toBe(5);
    expect(lessonAge([{ ...correction, kind: 'agent_message' }], task)).toBeNull();
    expect(lessonAge([], task)).toBeNull();
  });

  it('avoids a trap while the lesson is in its window and forgets it once the lesson scrolls out', async () => {
    const memory = boundedHistory(5);
    await memory.afterTask([correction, ...filler(4)]);
    expect((await memory.beforeTask(task)).avoids).toBe(true);
    await memory.afterTask(filler(1));
    expect(await memory.beforeTask(task)).toMatchObject({ avoids: false, lessonAge: 6 });
  });

  it('does not apply one user’s personal lesson to another user', async () => {
    const tables = firstTaskWith('report_tables');
    const lesson = recordsOf(world, [tables], () => ({ avoids: false })).find(
      (r) => r.kind === 'user_correction',
    ) as RawRecordInput;
    const memory = boundedHistory(50);
    await memory.afterTask([{ ...lesson, userId: 'someone-else' }]);
    expect((await memory.beforeTask(tables)).avoids).toBe(false);
    await memory.afterTask([lesson]);
    expect((await memory.beforeTask(tables)).avoids).toBe(true);
  });

  it('with a window as long as the whole run, never falls into a trap twice after the first day it learned it', async () => {
    const run = await playWorld(world, boundedHistory(1_000_000), 'sim-unit-bounded');
    expect(run.recurrence.overall.recurred).toBe(0);
    expect(run.recurrence.overall.encounters).toBeGreaterThan(0);
  });
});

describe('metrics', () => {
  const e = (trap: TrapId, userId: string, fell: boolean, day = 0): Encounter => ({
    taskId: `${trap}-${userId}-${day}`,
    day,
    userId,
    trap,
    fell,
  });

  it('counts recurrences after the first fall, per user for a personal trap', () => {
    const r = recurrence([
      e('billing_cents', 'u1', true),
      e('billing_cents', 'u2', true),
      e('billing_cents', 'u1', false),
      e('billing_cents', 'u3', true),
      e('report_tables', 'u1', true),
      e('report_tables', 'u2', true),
      e('report_tables', 'u2', false),
      e('report_tables', 'u1', true),
    ]);
    expect(r.byTrap.billing_cents).toEqual({ encounters: 3, recurred: 2, rate: 2 / 3 });
    // u2's first table fall is a first fall, not a recurrence of u1's.
    expect(r.byTrap.report_tables).toEqual({ encounters: 2, recurred: 1, rate: 0.5 });
    expect(r.byTrap.crm_timeout).toEqual({ encounters: 0, recurred: 0, rate: null });
    expect(r.overall).toEqual({ encounters: 5, recurred: 3, rate: 0.6 });
  });

  it('does not count encounters before the first fall', () => {
    expect(
      recurrence([e('date_format', 'u', false), e('date_format', 'u', true), e('date_format', 'u', false)]).overall,
    ).toEqual({ encounters: 1, recurred: 0, rate: 0 });
  });

  it('averages defined rates only, and pools counts', () => {
    expect(meanOf([0.5, null, 1])).toBe(0.75);
    expect(meanOf([null])).toBeNull();
    expect(
      pooled([
        { encounters: 4, recurred: 1, rate: 0.25 },
        { encounters: 1, recurred: 1, rate: 1 },
      ]),
    ).toEqual({ encounters: 5, recurred: 2, rate: 0.4 });
  });

  it('classifies lesson notes by what became of them and leaves other notes out', () => {
    const cents = 'Amounts from the billing API are in cents; divide by 100.';
    const v = (
      version: number,
      status: VersionView['status'],
      confidence: number,
      more: Partial<VersionView> = {},
    ): VersionView => ({
      version,
      status,
      claim: cents,
      confidence,
      contradictedAt: null,
      supersededBy: null,
      ...more,
    });
    const tables = { claim: 'I want reports as a table, not prose.' };
    const billing = { level: 'task_type', key: 'invoice_report' } as const;
    const notes: NoteView[] = [
      { noteId: 'kept', scope: billing, versions: [v(1, 'active', 0.9), v(2, 'active', 0.92)] },
      {
        noteId: 'contradicted',
        scope: billing,
        versions: [
          v(1, 'active', 0.9),
          v(2, 'active', 0.54, { contradictedAt: '2026-10-01T00:00:00Z' }),
          v(3, 'active', 0.32, { contradictedAt: '2026-10-02T00:00:00Z' }),
        ],
      },
      {
        noteId: 'reworded',
        scope: billing,
        versions: [v(1, 'active', 0.9), v(2, 'superseded', 0.9, { supersededBy: 'kept' })],
      },
      {
        noteId: 'superseded',
        scope: billing,
        versions: [v(1, 'active', 0.9), v(2, 'superseded', 0.9, { supersededBy: 'refunds' })],
      },
      {
        noteId: 'refunds',
        scope: billing,
        versions: [v(1, 'active', 0.9, { claim: 'Amounts from the refunds API are already in dollars.' })],
      },
      {
        noteId: 'table',
        scope: { level: 'user', key: 'u1' },
        versions: [v(1, 'active', 0.9, tables), v(2, 'retired', 0.9, tables)],
      },
      {
        noteId: 'other',
        scope: { level: 'agent', key: 'a' },
        versions: [v(1, 'superseded', 0.8, { claim: 'vendors.get failed: service unavailable.' })],
      },
    ];
    const fates = lessonNoteFates(notes);
    expect(fates.map((f) => [f.noteId, f.lesson, f.fate, f.contradictions])).toEqual([
      ['kept', 'billing_cents', 'kept', 0],
      ['contradicted', 'billing_cents', 'contradicted', 2],
      ['reworded', 'billing_cents', 'reworded', 0],
      ['superseded', 'billing_cents', 'superseded', 0],
      ['refunds', 'refund_dollars', 'kept', 0],
      ['table', 'report_tables', 'retired', 0],
    ]);
    const summary = retirementSummary(fates);
    expect(summary).toMatchObject({
      lessonNotes: 6,
      removed: 3,
      reworded: 1,
      contradicted: 1,
      rate: 4 / 6,
      harmfulRate: 3 / 6,
      contradictionVersions: 2,
    });
    expect(summary.traps.lessonNotes).toBe(5);
    expect(summary.byLesson.billing_cents.lessonNotes).toBe(4);
    expect(lostLessons(fates)).toEqual(['report_tables:u1']);
    expect(retirementSummary([]).rate).toBeNull();
  });

  it('counts correct lesson notes weakened, superseded by a rewording, and reinforced', () => {
    const claim = 'Amounts from the billing API are in cents; divide by 100.';
    const billing = { level: 'task_type', key: 'invoice_report' } as const;
    const v = (version: number, status: VersionView['status'], confidence: number, more: Partial<VersionView> = {}) =>
      ({ version, status, claim, confidence, contradictedAt: null, supersededBy: null, ...more }) as VersionView;
    const notes: NoteView[] = [
      // Confirmed by a second source at the same confidence, then by a third.
      {
        noteId: 'reinforced',
        scope: billing,
        versions: [
          v(1, 'active', 0.9, { sourceCount: 1 }),
          v(2, 'active', 0.9, { sourceCount: 2 }),
          v(3, 'active', 0.9, { sourceCount: 3 }),
        ],
      },
      // Downgraded without a contradiction mark: still a weakening.
      { noteId: 'downgraded', scope: billing, versions: [v(1, 'active', 0.9), v(2, 'active', 0.6)] },
      {
        noteId: 'reworded',
        scope: billing,
        versions: [v(1, 'active', 0.9), v(2, 'superseded', 0.9, { supersededBy: 'reinforced' })],
      },
      { noteId: 'retired', scope: billing, versions: [v(1, 'active', 0.9), v(2, 'retired', 0.9)] },
    ];
    const fates = lessonNoteFates(notes);
    expect(fates.map((f) => [f.noteId, f.reinforcements, f.confidenceLowered])).toEqual([
      ['reinforced', 2, false],
      ['downgraded', 0, true],
      ['reworded', 0, false],
      ['retired', 0, false],
    ]);
    expect(retirementSummary(fates)).toMatchObject({ lessonNotes: 4, weakened: 2, reworded: 1, reinforced: 1 });
  });
});

describe('no memory', () => {
  it('falls into every trap every time', async () => {
    const run = await playWorld(world, noMemory(), 'sim-unit-none');
    const met = TRAP_IDS.filter((t) => run.recurrence.byTrap[t].encounters > 0);
    expect(met.length).toBeGreaterThanOrEqual(3);
    for (const t of met) expect(run.recurrence.byTrap[t].rate).toBe(1);
  });
});
