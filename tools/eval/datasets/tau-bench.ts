import { z } from 'zod';
import type { EvalCase, FailedRun } from '../types.ts';
import { DatasetFormatError, parseAs, readJson, singleJsonFile, type LoadOptions } from './input.ts';
import { assembleRecords, DAY, SECOND, textIfAny, type Draft, type DraftRecord } from './records.ts';

/**
 * tau-bench airline: recorded runs of a tool-calling customer-service agent, four trials per task,
 * each with reward 0 or 1. Only `traj` (what was said and done) is read. Everything under `info`
 * is the simulated customer's hidden goal (`task.instruction`) and the grader's key (gold actions,
 * reward details): the schema below does not even keep it.
 */

const AGENT = 'tau-bench';
/** The airline domain's "today"; trial t of a task runs t days later, so trials are ordered in time. */
const FIRST_DAY = Date.UTC(2024, 4, 15, 9);
const STEP = 20 * SECOND;
/** The customer simulator's end-of-conversation token: a control signal, not something the customer said. */
const STOP = '###STOP###';

const ToolCall = z.looseObject({
  id: z.string().optional(),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});
const Message = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullish(),
  tool_calls: z.array(ToolCall).nullish(),
  name: z.string().optional(),
  tool_call_id: z.string().optional(),
});
type Message = z.infer<typeof Message>;
/** A strict object: `info` (grader data) is dropped here, at parsing. */
const Run = z.object({
  task_id: z.number().int().min(0),
  trial: z.number().int().min(0),
  reward: z.number(),
  traj: z.array(Message),
});
type Run = z.infer<typeof Run>;
const Runs = z.array(Run, { error: 'expected a JSON list of runs {task_id, trial, reward, info, traj}' });

export async function loadTauBench(target: string, options: LoadOptions = {}): Promise<EvalCase[]> {
  const file = await singleJsonFile('tau-bench', target);
  const runs = parseAs(Runs, await readJson('tau-bench', file), 'tau-bench', file);
  return [...groupByTask(runs, file)]
    .sort(([a], [b]) => a - b)
    .map(([taskId, trials]) => toCase(taskId, trials, file, options));
}

function groupByTask(runs: readonly Run[], file: string): Map<number, Run[]> {
  const byTask = new Map<number, Run[]>();
  for (const run of runs) {
    const trials = byTask.get(run.task_id) ?? [];
    if (trials.some((t) => t.trial === run.trial))
      throw new DatasetFormatError('tau-bench', file, `task ${run.task_id} has trial ${run.trial} twice`);
    byTask.set(run.task_id, [...trials, run]);
  }
  return byTask;
}

function toCase(taskId: number, trials: Run[], file: string, options: LoadOptions): EvalCase {
  const caseId = `task-${taskId}`;
  const ordered = [...trials].sort((a, b) => a.trial - b.trial);
  const records = assembleRecords(
    caseId,
    ordered.flatMap((run) => trialDrafts(caseId, run, file, options)),
  );
  const failedRuns = ordered
    .filter(failed)
    .map((run): FailedRun => ({ runId: sessionOf(caseId, run), goldSession: sessionOf(caseId, run) }));
  return { dataset: 'tau-bench', caseId, records, queries: [], failedRuns };
}

const failed = (run: Run): boolean => run.reward < 1;
const sessionOf = (caseId: string, run: Run): string => `${caseId}-trial-${run.trial}`;

/** One trial: every message of `traj` in order, then its outcome. Records of one message share its step. */
function trialDrafts(caseId: string, run: Run, file: string, options: LoadOptions): Draft[] {
  const session = sessionOf(caseId, run);
  const common = {
    agentId: AGENT,
    userId: `customer-${run.task_id}`,
    sessionId: session,
    taskId: session,
    taskType: `airline-task-${run.task_id}`,
  };
  const start = FIRST_DAY + run.trial * DAY;
  const drafts: Draft[] = [];
  const add = (step: number, actor: string, record: OwnFields, goldId?: string) => {
    const sameStep = drafts.filter((d) => d.step === step).length;
    drafts.push({
      goldId: goldId ?? (sameStep === 0 ? `t${run.trial}:${step}` : `t${run.trial}:${step}.${sameStep}`),
      goldSession: session,
      step,
      actor,
      at: start + drafts.length * STEP,
      record: { ...common, ...record },
    });
  };
  const toolOfCall = new Map<string, string>();
  const report = (message: string) => options.onIssue?.(`tau-bench ${session}: ${message}`);
  run.traj.forEach((message, step) => {
    if (message.role === 'tool' && !message.name && !toolOfCall.has(message.tool_call_id ?? '')) {
      throw new DatasetFormatError(
        'tau-bench',
        file,
        `${session}: traj[${step}] is a tool message without a tool name`,
      );
    }
    for (const { actor, record } of messageRecords(message, toolOfCall, report)) add(step, actor, record);
  });
  const status = failed(run) ? 'failure' : 'success';
  add(
    run.traj.length,
    'environment',
    {
      kind: 'task_outcome',
      source: 'system',
      outcome: { status, reward: run.reward },
      ...(status === 'failure' ? { tags: ['failure'] } : {}),
    },
    `t${run.trial}:outcome`,
  );
  return drafts;
}

/** What a message decides about its records; the trial supplies agent, customer, session and task. */
type OwnFields = Omit<DraftRecord, 'agentId' | 'sessionId' | 'userId' | 'taskId' | 'taskType'>;
type MessageRecord = { actor: string; record: OwnFields };

function messageRecords(
  message: Message,
  toolOfCall: Map<string, string>,
  report: (message: string) => void,
): MessageRecord[] {
  const content = message.content ?? '';
  switch (message.role) {
    case 'system':
      // The agent's policy prompt: its configuration, the same in every run, not part of the interaction.
      return [];
    case 'user': {
      const text = content.replace(STOP, '').trim();
      return text ? [{ actor: 'user', record: { kind: 'user_message', source: 'user', role: 'user', text } }] : [];
    }
    case 'assistant': {
      const said: MessageRecord[] = content.trim()
        ? [{ actor: 'assistant', record: { kind: 'agent_message', source: 'agent', role: 'assistant', text: content } }]
        : [];
      const calls = (message.tool_calls ?? []).map((call): MessageRecord => {
        if (call.id) toolOfCall.set(call.id, call.function.name);
        const args = parseArguments(call.function.arguments, () =>
          report(`tool call ${call.function.name} has arguments that are not JSON: kept as text`),
        );
        return {
          actor: 'assistant',
          record: {
            kind: 'tool_call',
            source: 'agent',
            role: 'assistant',
            payload: { tool: call.function.name, args },
          },
        };
      });
      return [...said, ...calls];
    }
    case 'tool': {
      const tool = message.name ?? toolOfCall.get(message.tool_call_id ?? '') ?? 'unknown';
      // The environment answers a rejected call with "Error: …": the replay reads kind `error` as a tool error.
      return /^\s*Error\b/.test(content)
        ? [
            {
              actor: tool,
              record: { kind: 'error', source: 'tool', text: content, payload: { tool }, tags: ['failure'] },
            },
          ]
        : [{ actor: tool, record: { kind: 'tool_result', source: 'tool', ...textIfAny(content), payload: { tool } } }];
    }
  }
}

function parseArguments(raw: string, onInvalid: () => void): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    onInvalid();
    return raw;
  }
}
