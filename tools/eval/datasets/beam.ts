import path from 'node:path';
import { z } from 'zod';
import type { EvalCase, EvalQuery, EvalRecord } from '../types.ts';
import {
  DatasetFormatError,
  formatPath,
  isDirectory,
  isFile,
  numberedEntries,
  parseAs,
  readJson,
  type LoadOptions,
} from './input.ts';
import { assembleRecords, dayAfterLast, MINUTE, monthIndex, utcTime, type Draft } from './records.ts';

/**
 * BEAM: long user–assistant chats in batches (each batch opens with a dated "time anchor"),
 * and probing questions in ten categories whose gold evidence are message ids. A batch is a
 * session: it is one dated stretch of the conversation.
 */

const AGENT = 'beam';
const USER = 'user';
/** Anchors are dates; a day's conversation is taken to start at 09:00 UTC. */
const START_HOUR = 9;
/** Where a chat's clock starts if a message comes before any anchor. */
const NO_ANCHOR_START = Date.UTC(2024, 0, 1, START_HOUR);

const Message = z.looseObject({
  role: z.enum(['user', 'assistant']),
  id: z.number().int().min(0),
  content: z.string(),
  time_anchor: z.string().nullish(),
});
const Batch = z.looseObject({
  batch_number: z.number().int(),
  turns: z.array(z.array(Message)),
  time_anchor: z.string().nullish(),
});
const Chat = z.array(Batch, { error: 'expected a JSON list of batches' });
type Chat = z.infer<typeof Chat>;
const Question = z.looseObject({ question: z.string().min(1), source_chat_ids: z.unknown().optional() });
const Questions = z.record(z.string(), z.array(Question), {
  error: 'expected a JSON object mapping each category to a list of questions',
});
type Questions = z.infer<typeof Questions>;

export async function loadBeam(target: string, options: LoadOptions = {}): Promise<EvalCase[]> {
  return Promise.all((await chatFolders(target)).map(({ id, dir }) => loadChat(`chat-${id}`, dir, options)));
}

/** The `<id>/` folders of a BEAM part, in id order; or the one chat when given its own folder. */
async function chatFolders(target: string): Promise<{ id: string; dir: string }[]> {
  if (!(await isDirectory(target)))
    throw new DatasetFormatError('beam', target, 'expected a folder of <id>/chat.json chats');
  const own = path.join(target, 'chat.json');
  if (await isFile(own)) return [{ id: path.basename(path.resolve(target)), dir: target }];
  const entries = await numberedEntries(target);
  const chats = [];
  for (const e of entries)
    if (await isDirectory(path.join(target, e.name))) chats.push({ id: String(e.id), dir: path.join(target, e.name) });
  if (chats.length === 0) throw new DatasetFormatError('beam', target, 'expected <id>/chat.json folders, found none');
  return chats;
}

async function loadChat(caseId: string, dir: string, options: LoadOptions): Promise<EvalCase> {
  const chatFile = path.join(dir, 'chat.json');
  const questionsFile = path.join(dir, 'probing_questions.json');
  const chat = parseAs(Chat, await readJson('beam', chatFile), 'beam', chatFile);
  const questions = parseAs(Questions, await readJson('beam', questionsFile), 'beam', questionsFile);
  const records = assembleRecords(caseId, messageDrafts(chat, chatFile));
  return { dataset: 'beam', caseId, records, queries: toQueries(caseId, questions, records, options), failedRuns: [] };
}

/**
 * Messages in file order. Anchors sit on some messages (in this data: the first of each batch),
 * so a message takes the latest anchor seen and one minute per message since it.
 */
function messageDrafts(chat: Chat, file: string): Draft[] {
  let anchor = NO_ANCHOR_START;
  let sinceAnchor = 0;
  const setAnchor = (value: string, where: string) => {
    anchor = parseAnchor(value, where, file);
    sinceAnchor = 0;
  };
  const seen = new Set<number>();
  return chat.flatMap((batch, b) => {
    if (batch.time_anchor) setAnchor(batch.time_anchor, formatPath([b, 'time_anchor']));
    const session = `batch-${batch.batch_number}`;
    return batch.turns.flat().map((message): Draft => {
      if (message.time_anchor) setAnchor(message.time_anchor, `${formatPath([b])}.turns: message ${message.id}`);
      if (seen.has(message.id))
        throw new DatasetFormatError('beam', file, `${formatPath([b])}.turns: message id ${message.id} appears twice`);
      seen.add(message.id);
      const fromUser = message.role === 'user';
      return {
        goldId: String(message.id),
        goldSession: session,
        actor: message.role,
        at: anchor + sinceAnchor++ * MINUTE,
        record: {
          kind: fromUser ? 'user_message' : 'agent_message',
          source: fromUser ? 'user' : 'agent',
          role: message.role,
          agentId: AGENT,
          userId: USER,
          sessionId: session,
          text: stripAnnotation(message.content),
        },
      };
    });
  });
}

/** `March-15-2024` → 09:00 UTC that day. */
function parseBeamAnchor(value: string): number | undefined {
  const m = /^\s*([A-Za-z]+)-(\d{1,2})-(\d{4})\s*$/.exec(value);
  const month = m ? monthIndex(m[1] as string) : undefined;
  return m && month !== undefined ? utcTime(Number(m[3]), month, Number(m[2]), START_HOUR) : undefined;
}

function parseAnchor(value: string, where: string, file: string): number {
  const time = parseBeamAnchor(value);
  if (time === undefined)
    throw new DatasetFormatError(
      'beam',
      file,
      `${where}: expected a time anchor like "March-15-2024", got ${JSON.stringify(value)}`,
    );
  return time;
}

/** The dataset marks where a message sits in its plan with a trailing `->-> 1,1`: not part of what was said. */
const stripAnnotation = (content: string): string => content.trimEnd().replace(/\s*->->[^\n]*$/, '');

function toQueries(
  caseId: string,
  questions: Questions,
  records: readonly EvalRecord[],
  options: LoadOptions,
): EvalQuery[] {
  const known = new Set(records.map((r) => r.goldId));
  const askedAt = dayAfterLast(records);
  return Object.entries(questions).flatMap(([category, list]) =>
    list.map((q, i): EvalQuery => {
      const queryId = `${category}-${i + 1}`;
      const report = (message: string) => options.onIssue?.(`beam ${caseId} ${queryId}: ${message}`);
      const evidence = (value: unknown) => knownIds(value, known, report);
      const unanswerable = category === 'abstention';
      const source = q.source_chat_ids as { original_info?: unknown; updated_info?: unknown } | null | undefined;
      const update =
        category === 'knowledge_update' && source && typeof source === 'object' && !Array.isArray(source)
          ? { original: evidence(source.original_info), updated: evidence(source.updated_info) }
          : undefined;
      if (category === 'knowledge_update' && !update)
        report('source_chat_ids has no original_info/updated_info: no update pair');
      // Abstention questions are about what the chat never said: there is nothing to point at.
      const goldEvidence = unanswerable ? [] : evidence(q.source_chat_ids);
      if (!unanswerable && goldEvidence.length === 0) report('no gold evidence');
      return {
        queryId,
        category,
        text: q.question,
        // The chat's user asks about their own project ("when does my first sprint end?").
        askedBy: USER,
        askedAt,
        goldEvidence,
        unanswerable,
        ...(update ? { update } : {}),
      };
    }),
  );
}

/**
 * Message ids in `source_chat_ids`: a list, a list with nested lists (one chat has
 * `[20, 22, [70, 72, 74], …]`), or an object of lists (original_info/updated_info,
 * first_statement/second_statement, first_event/second_event), all flattened in order.
 */
function knownIds(value: unknown, known: ReadonlySet<string>, report: (message: string) => void): string[] {
  const found: string[] = [];
  const odd: unknown[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) {
      if (depth > 0) report(`nested id list ${JSON.stringify(v)} flattened`);
      v.forEach((x) => walk(x, depth + 1));
    } else if (typeof v === 'object') Object.values(v).forEach((x) => walk(x, depth));
    else if ((typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^\d+$/.test(v)))
      found.push(String(Number(v)));
    else odd.push(v);
  };
  walk(value, 0);
  const unknown = found.filter((id) => !known.has(id));
  if (odd.length > 0 || unknown.length > 0)
    report(`dropped ${JSON.stringify([...odd, ...unknown])} (not message ids of this chat)`);
  return [...new Set(found.filter((id) => known.has(id)))];
}
