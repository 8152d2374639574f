import { argsOf, ID_ARG, toolOf, writesOf } from '../../../policies/attribution-contrast.ts';
import { datedStatement } from '../../../policies/statements.ts';
import { sentences } from '../../../policies/text.ts';
import { toThirdPerson } from '../../../policies/third-person.ts';
import type { ArchivedRecord, Episode } from '../../contracts/episode.ts';

/**
 * A task an agent worked on, told as what happened in it: what the user asked for, what the
 * assistant changed, how the run ended ("customer-6 would like to change customer-6's flight
 * reservation. The assistant called update_reservation_flights (reservation_id M05KNL). The run
 * ended in failure."). The lessons drawn from the task are notes of their own; its digest says
 * what was said and done in this one.
 */

export interface TaskStory {
  text: string;
  evidence: ArchivedRecord[];
}

/** State-changing calls told in a digest, the first ones first. @default 4 */
export const DIGEST_MAX_CALLS = 4;

/** A sentence in which the user asks for something: "I'd like to …", "I need to …", "I'm looking to …". */
const ASKING =
  /\bI(?:'d|\u2019d| would)? (?:like|need|want|wish)\b|\bI(?:'m|\u2019m| am) (?:looking|hoping|trying|calling|reaching out)\b/i;

/** Whether an episode is a task an agent worked on (it acted or spoke), rather than people talking. */
export const isTask = (ep: Episode): boolean =>
  ep.records.some((r) => r.record.kind === 'tool_call' || r.record.kind === 'agent_message');

export function taskStory(ep: Episode, user: string): TaskStory | undefined {
  const asked = firstRequest(ep);
  const request = asked ? told(asked, user) : '';
  const writes = distinctCalls(writesOf(ep)).slice(0, DIGEST_MAX_CALLS);
  const done =
    writes.length > 0
      ? `The assistant called ${writes.map(describeCall).join(', ')}.`
      : 'The assistant made no change.';
  const outcome = ep.records.find((r) => r.record.kind === 'task_outcome' && r.record.outcome?.status);
  const status = outcome?.record.outcome?.status;
  const ended = status ? ` The run ended in ${status}.` : '';
  return {
    text: `${request}${request ? ' ' : ''}${done}${ended}`,
    evidence: [...(asked ? [asked.record] : []), ...writes, ...(outcome ? [outcome] : [])],
  };
}

interface Asked {
  record: ArchivedRecord;
  sentence: string;
}

/** The user's first sentence that asks for something, or else the first that tells something of theirs. */
function firstRequest(ep: Episode): Asked | undefined {
  const said = ep.records
    .filter((r) => r.record.kind === 'user_message' && r.record.source !== 'tool')
    .flatMap((record) =>
      sentences(record.record.text ?? '')
        .filter((s) => !s.endsWith('?'))
        .map((s) => ({ record, sentence: s.replace(/^(?:\w+[,!]\s+)+(?=I\b)/, '') })),
    );
  return said.find((s) => ASKING.test(s.sentence)) ?? said.find((s) => /^(?:I|My)\b/.test(s.sentence));
}

/** The request in the third person, its time words absolute and its "please" dropped. */
function told(asked: Asked, user: string): string {
  const third = toThirdPerson(asked.sentence.replace(/,?\s*please(?=[.!]*$)/i, ''), {
    speaker: user,
    listener: 'the assistant',
  });
  const at = asked.record.record.observedAt;
  return datedStatement(third, at).text;
}

/** A call told by its tool and the identifiers it acted on: "update_reservation_flights (reservation_id M05KNL)". */
function describeCall(call: ArchivedRecord): string {
  const ids = Object.entries(argsOf(call)).filter(([k, v]) => ID_ARG.test(k) && typeof v === 'string');
  const tool = toolOf(call) as string;
  return ids.length > 0 ? `${tool} (${ids.map(([k, v]) => `${k} ${v as string}`).join(', ')})` : tool;
}

/** The same call made twice (a retry) is told once. */
function distinctCalls(calls: readonly ArchivedRecord[]): ArchivedRecord[] {
  const seen = new Set<string>();
  return calls.filter((c) => {
    const key = describeCall(c);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
