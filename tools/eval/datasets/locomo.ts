import { z } from 'zod';
import type { EvalCase, EvalQuery } from '../types.ts';
import { DatasetFormatError, formatPath, parseAs, readJson, singleJsonFile, type LoadOptions } from './input.ts';
import { assembleRecords, dayAfterLast, MINUTE, monthIndex, utcTime, type Draft } from './records.ts';

/**
 * LoCoMo: long two-person conversations in dated sessions, with questions whose evidence are
 * turn ids (`D<session>:<turn>`). Only the turns are ingested: `event_summary`, `observation`
 * and `session_summary` are the dataset's own annotations of the conversation, not things
 * anyone said, and would hand a memory the answers.
 */

const AGENT = 'locomo';

/** Category ids as the official evaluation code numbers them (the paper lists them in another order). */
const LOCOMO_CATEGORIES: Readonly<Record<number, string>> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};
const ADVERSARIAL = 5;

const Turn = z.looseObject({
  speaker: z.string().min(1),
  dia_id: z.string().min(1),
  text: z.string(),
  blip_caption: z.string().nullish(),
});
const Session = z.array(Turn, { error: 'expected a list of turns' });
const Qa = z.looseObject({
  question: z.string().min(1),
  evidence: z.array(z.string()),
  category: z.number().int().min(1).max(5),
});
const Conversation = z.looseObject({
  sample_id: z.string().min(1),
  conversation: z.record(z.string(), z.unknown()),
  qa: z.array(Qa),
});
const Conversations = z.array(Conversation, { error: 'expected a JSON list of conversations' });
type Conversation = z.infer<typeof Conversation>;

export async function loadLocomo(target: string, options: LoadOptions = {}): Promise<EvalCase[]> {
  const file = await singleJsonFile('locomo', target);
  const conversations = parseAs(Conversations, await readJson('locomo', file), 'locomo', file);
  return conversations.map((conv, i) => toCase(conv, `[${i}]`, file, options));
}

function toCase(conv: Conversation, at: string, file: string, options: LoadOptions): EvalCase {
  const caseId = conv.sample_id;
  const records = assembleRecords(caseId, turnDrafts(conv, at, file));
  const known = new Set(records.map((r) => r.goldId));
  const askedAt = dayAfterLast(records);
  const queries = conv.qa.map((qa, i): EvalQuery => {
    const queryId = `q${i + 1}`;
    const report = (message: string) => options.onIssue?.(`locomo ${caseId} ${queryId}: ${message}`);
    const goldEvidence = cleanEvidence(qa.evidence, known, report);
    if (goldEvidence.length === 0) report('no gold evidence');
    return {
      queryId,
      category: LOCOMO_CATEGORIES[qa.category] as string,
      text: qa.question,
      askedAt,
      goldEvidence,
      unanswerable: qa.category === ADVERSARIAL,
    };
  });
  return { dataset: 'locomo', caseId, records, queries, failedRuns: [] };
}

/** Every turn of every session, sessions in number order, turn i of a session i minutes after it starts. */
function turnDrafts(conv: Conversation, at: string, file: string): Draft[] {
  const sessions = Object.keys(conv.conversation)
    .flatMap((key) => {
      const m = /^session_(\d+)$/.exec(key);
      return m ? [{ key, n: Number(m[1]) }] : [];
    })
    .sort((a, b) => a.n - b.n);
  const seen = new Set<string>();
  return sessions.flatMap(({ key }) => {
    const where = `${at}.conversation.${key}`;
    const turns = parseAs(Session, conv.conversation[key], 'locomo', file, where);
    const start = sessionStart(conv.conversation[`${key}_date_time`], `${where}_date_time`, file);
    return turns.map((turn, i): Draft => {
      if (seen.has(turn.dia_id))
        throw new DatasetFormatError(
          'locomo',
          file,
          `${where}${formatPath([i, 'dia_id'])}: ${turn.dia_id} appears twice`,
        );
      seen.add(turn.dia_id);
      return {
        goldId: turn.dia_id,
        goldSession: key,
        actor: turn.speaker,
        at: start + i * MINUTE,
        record: {
          kind: 'user_message',
          source: 'user',
          role: 'user',
          agentId: AGENT,
          userId: turn.speaker,
          sessionId: key,
          text: turn.blip_caption ? `${turn.text} [shares a photo: ${turn.blip_caption}]` : turn.text,
        },
      };
    });
  });
}

/** `1:56 pm on 8 May, 2023` → epoch ms (read as UTC: the dataset gives no time zone). */
function parseLocomoDate(value: string): number | undefined {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(value);
  if (!m) return undefined;
  const [, h = '', min = '', half = '', day = '', monthName = '', year = ''] = m;
  const month = monthIndex(monthName);
  const hour = (Number(h) % 12) + (half.toLowerCase() === 'pm' ? 12 : 0);
  if (month === undefined || Number(h) > 12 || Number(min) > 59) return undefined;
  return utcTime(Number(year), month, Number(day), hour, Number(min));
}

function sessionStart(value: unknown, where: string, file: string): number {
  const time = typeof value === 'string' ? parseLocomoDate(value) : undefined;
  if (time === undefined) {
    throw new DatasetFormatError(
      'locomo',
      file,
      `${where}: expected a date like "1:56 pm on 8 May, 2023", got ${JSON.stringify(value)}`,
    );
  }
  return time;
}

/**
 * Evidence as turn ids of this conversation. The source has a few malformed entries: two ids in
 * one string (`D8:6; D9:17`), a stray colon (`D:11:26`), and ids of turns that do not exist;
 * the first two are repaired, the last dropped, and each is reported.
 */
function cleanEvidence(
  raw: readonly string[],
  known: ReadonlySet<string>,
  report: (message: string) => void,
): string[] {
  const out: string[] = [];
  for (const item of raw) {
    const pieces = item
      .split(/[;,\s]+/)
      .filter(Boolean)
      .map((piece) => ({ piece, id: normalizeTurnId(piece) }));
    const kept = pieces.filter((p) => p.id !== undefined && known.has(p.id)).map((p) => p.id as string);
    const dropped = pieces.filter((p) => p.id === undefined || !known.has(p.id)).map((p) => p.piece);
    if (kept.length > 0 && (kept.length > 1 || kept[0] !== item))
      report(`evidence ${JSON.stringify(item)} read as ${kept.join(', ')}`);
    if (dropped.length > 0 || pieces.length === 0)
      report(
        `evidence ${JSON.stringify(item)}: dropped ${dropped.length > 0 ? dropped.join(', ') : 'an empty id'} (no such turn)`,
      );
    for (const id of kept) if (!out.includes(id)) out.push(id);
  }
  return out;
}

const normalizeTurnId = (piece: string): string | undefined => {
  const m = /^D:?(\d+):(\d+)$/i.exec(piece);
  return m ? `D${Number(m[1])}:${Number(m[2])}` : undefined;
};
