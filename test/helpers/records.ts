import { seededRandom } from '../../policies/random.ts';
import type { RawRecordInput } from '../../src/contracts/raw-record.ts';

/**
 * Deterministic generator of realistic, valid raw records: sessions in which a user asks,
 * the agent calls tools, some tools fail, users correct the agent, tasks end in success or
 * failure, feedback and memory-use records appear. Same options → same records, so tests
 * and benchmarks are reproducible and idempotency can be checked by regenerating a batch.
 */
export interface RecordGenOptions {
  /** @default 'acme' */
  tenantId?: string;
  count: number;
  /** @default 1 */
  seed?: number;
  /** First observedAt. @default 2026-03-01T08:00:00Z */
  start?: Date;
  /** Mean gap between records in ms. @default 45_000 */
  gapMs?: number;
  /** @default 5 */
  users?: number;
  /** Set recordedAt (as the archive would); otherwise left for the writer to stamp. @default false */
  withRecordedAt?: boolean;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TASK_TYPES = ['refund_request', 'invoice_lookup', 'travel_booking', 'password_reset', 'report_export'];
const TOOLS = ['crm.lookup', 'billing.refund', 'calendar.search', 'flights.search', 'reports.export'];
const WORDS =
  'the order invoice refund customer account booking flight date amount currency policy manager approval export report please thanks wrong actually not correct should be'.split(
    ' ',
  );

/** mulberry32, shared with the policies: same seed, same data. */
const prng = seededRandom;

/** A valid ULID for time `ms` with seeded randomness (ulid's own factory uses crypto). */
export function seededUlid(ms: number, rand: () => number): string {
  let time = '';
  for (let i = 9, t = ms; i >= 0; i -= 1, t = Math.floor(t / 32)) time = (CROCKFORD[t % 32] ?? '0') + time;
  let tail = '';
  for (let i = 0; i < 16; i += 1) tail += CROCKFORD[Math.floor(rand() * 32)] ?? '0';
  return time + tail;
}

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

function sentence(rand: () => number, words: number): string {
  return Array.from({ length: words }, () => pick(rand, WORDS)).join(' ');
}

type Kind = RawRecordInput['kind'];
/** The shape of one session: the kinds in order; tool steps may fail. */
const SCRIPT: Kind[] = [
  'user_message',
  'memory_used',
  'agent_message',
  'tool_call',
  'tool_result',
  'agent_message',
  'user_message',
  'task_outcome',
  'feedback',
];

export function generateRecords(options: RecordGenOptions): RawRecordInput[] {
  const rand = prng(options.seed ?? 1);
  const tenantId = options.tenantId ?? 'acme';
  const gap = options.gapMs ?? 45_000;
  let at = (options.start ?? new Date('2026-03-01T08:00:00Z')).getTime();
  const out: RawRecordInput[] = [];
  let session = 0;
  while (out.length < options.count) {
    session += 1;
    const ctx = {
      tenantId,
      userId: `user-${1 + Math.floor(rand() * (options.users ?? 5))}`,
      agentId: 'support-agent',
      sessionId: `s-${options.seed ?? 1}-${session}`,
      taskId: `t-${options.seed ?? 1}-${session}`,
      taskType: pick(rand, TASK_TYPES),
    };
    const failed = rand() < 0.2;
    for (const kind of SCRIPT) {
      if (out.length >= options.count) break;
      at += Math.floor(gap * (0.5 + rand()));
      out.push(makeRecord(rand, ctx, kind, at, failed, options.withRecordedAt ?? false));
    }
  }
  return out;
}

interface SessionCtx {
  tenantId: string;
  userId: string;
  agentId: string;
  sessionId: string;
  taskId: string;
  taskType: string;
}

function makeRecord(
  rand: () => number,
  ctx: SessionCtx,
  scripted: Kind,
  at: number,
  failed: boolean,
  withRecordedAt: boolean,
): RawRecordInput {
  const observedAt = new Date(at).toISOString();
  const base = {
    id: seededUlid(at, rand),
    ...ctx,
    observedAt,
    ...(withRecordedAt ? { recordedAt: new Date(at + 1500).toISOString() } : {}),
  };
  const tool = pick(rand, TOOLS);
  // A failed session turns its second user message into a correction and its tool into an error.
  const kind: Kind =
    failed && scripted === 'user_message' && rand() < 0.6
      ? 'user_correction'
      : failed && scripted === 'tool_result'
        ? 'error'
        : scripted;
  switch (kind) {
    case 'user_message':
      return { ...base, kind, role: 'user', source: 'user', text: sentence(rand, 8 + Math.floor(rand() * 20)) };
    case 'user_correction':
      return {
        ...base,
        kind,
        role: 'user',
        source: 'user',
        text: `actually ${sentence(rand, 10)}`,
        tags: ['user_correction'],
        importance: 0.9,
      };
    case 'agent_message':
      return { ...base, kind, role: 'assistant', source: 'agent', text: sentence(rand, 15 + Math.floor(rand() * 40)) };
    case 'tool_call':
      return { ...base, kind, source: 'agent', payload: { tool, args: { query: sentence(rand, 3), limit: 10 } } };
    case 'tool_result':
      return {
        ...base,
        kind,
        source: 'tool',
        payload: { tool, rows: Math.floor(rand() * 50), sample: sentence(rand, 12) },
        outcome: { status: 'success' },
      };
    case 'error':
      return {
        ...base,
        kind,
        source: 'tool',
        text: `${tool} failed: timeout after 30s`,
        tags: ['failure'],
        outcome: { status: 'failure', expected: 'rows', actual: 'timeout' },
      };
    case 'task_outcome':
      return {
        ...base,
        kind,
        source: 'system',
        outcome: { status: failed ? 'failure' : 'success', reward: failed ? 0 : 1 },
        ...(failed ? { tags: ['failure'] } : rand() < 0.1 ? { tags: ['high_value'] } : {}),
      };
    case 'feedback':
      return {
        ...base,
        kind,
        role: 'user',
        source: 'user',
        text: failed ? 'not helpful' : 'thanks',
        outcome: { status: 'success', reward: failed ? -1 : 1 },
      };
    case 'memory_used':
      return {
        ...base,
        kind,
        source: 'system',
        payload: { noteId: `note-${Math.floor(rand() * 100)}`, version: 1, rank: 1, score: Number(rand().toFixed(3)) },
      };
    default:
      return { ...base, kind, source: 'system' };
  }
}

/** Records as JSONL text (one per line, trailing newline), as `archive put` reads them. */
export function toJsonl(records: readonly unknown[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join('');
}
