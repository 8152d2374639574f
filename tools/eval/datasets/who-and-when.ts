import path from 'node:path';
import { z } from 'zod';
import type { EvalCase } from '../types.ts';
import { DatasetFormatError, isDirectory, numberedEntries, parseAs, readJson, type LoadOptions } from './input.ts';
import { assembleRecords, clipRole, MINUTE, textIfAny, type Draft, type DraftRecord } from './records.ts';

/**
 * Who&When: logs of failed multi-agent runs, each labelled with the step and agent where the
 * failure started. Records come from `history` only. The labels (`mistake_step`,
 * `mistake_agent`) become the case's FailedRun, never a record; `ground_truth` (the answer),
 * `mistake_reason`, `question` (already the first step of the history) and `system_prompt`
 * (the agents' configuration, not something that happened) are not read at all.
 */

const AGENT = 'who-and-when';
const SUBSETS = ['algorithm-generated', 'hand-crafted'] as const;
/** The logs carry no times: one step a minute from a fixed start. */
const FIRST_STEP = Date.UTC(2024, 0, 1, 9);

const Entry = z.looseObject({
  content: z.string().nullish(),
  role: z.string().min(1),
  name: z.string().min(1).nullish(),
});
type Entry = z.infer<typeof Entry>;
const Log = z.looseObject(
  {
    history: z.array(Entry).min(1),
    mistake_agent: z.string().min(1),
    mistake_step: z.union([z.number().int().min(0), z.string().regex(/^\d+$/, 'expected a step number')]),
  },
  { error: 'expected a JSON object (a Who&When log with history, mistake_agent, mistake_step)' },
);
type Log = z.infer<typeof Log>;

export async function loadWhoAndWhen(target: string, options: LoadOptions = {}): Promise<EvalCase[]> {
  const logs = await logFiles(target);
  return Promise.all(
    logs.map(async ({ caseId, file }) =>
      toCase(caseId, parseAs(Log, await readJson('who-and-when', file), 'who-and-when', file), options),
    ),
  );
}

/** `algorithm-generated/N.json` then `hand-crafted/N.json`, each in number order. */
async function logFiles(target: string): Promise<{ caseId: string; file: string }[]> {
  const logs: { caseId: string; file: string }[] = [];
  for (const subset of SUBSETS) {
    const dir = path.join(target, subset);
    if (!(await isDirectory(dir))) continue;
    for (const { id, name } of await numberedEntries(dir, '.json'))
      logs.push({ caseId: `${subset}-${id}`, file: path.join(dir, name) });
  }
  if (logs.length === 0)
    throw new DatasetFormatError(
      'who-and-when',
      target,
      `expected ${SUBSETS.join('/ or ')}/ folders of N.json logs, found none`,
    );
  return logs;
}

function toCase(caseId: string, log: Log, options: LoadOptions): EvalCase {
  const common = { agentId: AGENT, sessionId: caseId, taskId: caseId };
  const drafts = log.history.map((entry, step): Draft => {
    const { actor, record } = entryRecord(entry);
    return {
      goldId: `step:${step}`,
      goldSession: caseId,
      step,
      actor,
      at: FIRST_STEP + step * MINUTE,
      record: { ...common, ...record },
    };
  });
  drafts.push({
    goldId: 'outcome',
    goldSession: caseId,
    step: log.history.length,
    actor: 'environment',
    at: FIRST_STEP + log.history.length * MINUTE,
    // Every log in the dataset is a failed run.
    record: {
      ...common,
      kind: 'task_outcome',
      source: 'system',
      outcome: { status: 'failure', reward: 0 },
      tags: ['failure'],
    },
  });
  const mistakeStep = Number(log.mistake_step);
  const atMistake = drafts[mistakeStep]?.actor;
  if (mistakeStep >= log.history.length)
    options.onIssue?.(`who-and-when ${caseId}: mistake_step ${mistakeStep} is past the end of the history`);
  else if (atMistake !== log.mistake_agent) {
    options.onIssue?.(
      `who-and-when ${caseId}: mistake_agent ${log.mistake_agent} is not the speaker of mistake_step ${mistakeStep} (${atMistake})`,
    );
  }
  return {
    dataset: 'who-and-when',
    caseId,
    records: assembleRecords(caseId, drafts),
    queries: [],
    failedRuns: [{ runId: caseId, goldSession: caseId, mistakeStep, mistakeAgent: log.mistake_agent }],
  };
}

type OwnFields = Omit<DraftRecord, 'agentId' | 'sessionId' | 'taskId'>;

/**
 * Hand-crafted logs name the speaker in `role` (`human`, `WebSurfer`, `Orchestrator (thought)`);
 * algorithm-generated ones in `name`, with `role` only user/assistant.
 */
function entryRecord(entry: Entry): { actor: string; record: OwnFields } {
  const speaker = entry.name ?? entry.role;
  const content = entry.content ?? '';
  if (speaker === 'human' || (!entry.name && entry.role === 'user')) {
    return {
      actor: speaker,
      record: { kind: 'user_message', source: 'user', role: 'user', userId: 'user', ...textIfAny(content) },
    };
  }
  if (/^computer_?terminal$/i.test(speaker)) return { actor: speaker, record: terminalRecord(speaker, content) };
  return {
    actor: agentName(speaker),
    record: { kind: 'agent_message', source: 'agent', role: clipRole(speaker), ...textIfAny(content) },
  };
}

/** Code execution output: a non-zero exit code is a tool error, recorded the way the replay reads one (kind `error`). */
function terminalRecord(tool: string, content: string): OwnFields {
  const exitCode = exitCodeOf(content);
  return exitCode !== undefined && exitCode !== 0
    ? { kind: 'error', source: 'tool', text: content, payload: { tool, exitCode }, tags: ['failure'] }
    : {
        kind: 'tool_result',
        source: 'tool',
        ...textIfAny(content),
        payload: { tool, ...(exitCode !== undefined ? { exitCode } : {}) },
      };
}

/** `exitcode: 1 (execution failed)` (algorithm-generated) or `exited with Unix exit code: 0` (hand-crafted). */
function exitCodeOf(content: string): number | undefined {
  const m = /exit\s?code:\s*(-?\d+)/i.exec(content);
  return m ? Number(m[1]) : undefined;
}

/** The agent behind a speaker label: `Orchestrator (thought)` and `Orchestrator (-> WebSurfer)` are the Orchestrator, as mistake_agent names it. */
const agentName = (speaker: string): string => speaker.replace(/\s*\(.*\)\s*$/, '') || speaker;
