import type { ArchivedRecord, Episode, Finding, TrialContrast } from '../src/contracts/episode.ts';

/**
 * Contrast of a failed run with successful runs of the same task type: what the failed one did
 * differently is the likeliest cause of its failure. Each finding cites records of the failed run
 * and of a successful one, so the lesson can be checked against both.
 */

/** Contrast lessons drawn from one failed run at most; the nearest to the failure first. @default 3 */
export const MAX_CONTRAST_FINDINGS = 3;

/** Tool names whose verb changes state (`book_reservation`, `flights.book`): the calls whose arguments decide an outcome. */
const WRITE_VERB_AT =
  /^(book|update|cancel|create|delete|send|transfer|refund|pay|set|add|remove|modify|change|submit|exchange|return|issue)/i;
const WRITE_VERB = { test: (tool: string) => WRITE_VERB_AT.test(tool.split(/[.:/]/).at(-1) ?? tool) };

/** An agent message asking the user to confirm before acting. */
const CONFIRM_ASK =
  /\b(confirm|proceed|shall i|should i|would you like me to|do you want me to|go ahead|\(yes\/no\)|yes\/no)\b/i;
const YES = /^\s*(yes|yeah|yep|sure|ok|okay|confirm|confirmed|go ahead|please do|correct|that's right)\b/i;

export const toolOf = (r: ArchivedRecord): string | undefined => {
  const payload = r.record.payload as { tool?: unknown } | undefined;
  return typeof payload?.tool === 'string' ? payload.tool : undefined;
};

const outcomeOf = (ep: Episode, status: 'success' | 'failure') =>
  ep.records.find((r) => r.record.kind === 'task_outcome' && r.record.outcome?.status === status);

const callsOf = (ep: Episode) => ep.records.filter((r) => r.record.kind === 'tool_call' && toolOf(r) !== undefined);
/** The calls of tools that change state, in order. */
export const writesOf = (ep: Episode) => callsOf(ep).filter((c) => WRITE_VERB.test(toolOf(c) as string));

export function trialContrasts(ep: Episode, peers: readonly Episode[]): Finding[] {
  const failed = outcomeOf(ep, 'failure');
  const successes = peers.filter(
    (p) => p.key !== ep.key && p.taskType !== undefined && p.taskType === ep.taskType && outcomeOf(p, 'success'),
  );
  if (!failed || successes.length === 0) return [];
  const finding = (contrast: TrialContrast, evidence: Array<ArchivedRecord | undefined>): Finding => ({
    type: 'omitted_step',
    episodeKey: ep.key,
    summary: `${contrast.kind.replace('_', ' ')} ${contrast.tool} in a failed ${ep.taskType} run`,
    evidence: evidence.filter((e): e is ArchivedRecord => e !== undefined),
    tool: contrast.tool,
    contrast,
  });
  const found = [
    ...skippedConfirmations(ep, successes).map(([c, ev]) => finding(c, ev)),
    ...omittedTools(ep, successes, failed).map(([c, ev]) => finding(c, ev)),
    ...otherArguments(ep, successes, failed).map(([c, ev]) => finding(c, ev)),
    ...extraTools(ep, successes, failed).map(([c, ev]) => finding(c, ev)),
  ];
  return found.slice(0, MAX_CONTRAST_FINDINGS);
}

type Contrast = [TrialContrast, Array<ArchivedRecord | undefined>];

/** Tools every successful run called and the failed run did not. */
function omittedTools(ep: Episode, successes: readonly Episode[], failed: ArchivedRecord): Contrast[] {
  const used = new Set(callsOf(ep).map(toolOf));
  const first = successes[0] as Episode;
  const common = [...new Set(callsOf(first).map(toolOf))].filter(
    (tool): tool is string => !!tool && successes.every((s) => callsOf(s).some((r) => toolOf(r) === tool)),
  );
  return common
    .filter((tool) => !used.has(tool) && informative(first, tool))
    .sort()
    .map((tool) => [{ kind: 'omitted_tool', tool }, [failed, callsOf(first).find((r) => toolOf(r) === tool)]]);
}

/** A tool whose call returned something (a no-op "think" tool returns nothing and teaches nothing). */
function informative(ep: Episode, tool: string): boolean {
  return ep.records.some(
    (r) =>
      (r.record.kind === 'tool_result' || r.record.kind === 'error') &&
      toolOf(r) === tool &&
      (r.record.text ?? '').trim() !== '',
  );
}

/** Tools that change state the failed run called and no successful run did. */
function extraTools(ep: Episode, successes: readonly Episode[], failed: ArchivedRecord): Contrast[] {
  const usedBySuccess = new Set(successes.flatMap((s) => callsOf(s).map(toolOf)));
  const extra = writesOf(ep).filter((r) => !usedBySuccess.has(toolOf(r)));
  const seen = new Set<string>();
  return extra.flatMap((call) => {
    const tool = toolOf(call) as string;
    if (seen.has(tool)) return [];
    seen.add(tool);
    return [[{ kind: 'extra_tool', tool }, [call, failed, outcomeOf(successes[0] as Episode, 'success')]]];
  });
}

/**
 * A state-changing call no successful run made with the same arguments, or one a successful run
 * made and the failed run never did, set against the call of that tool in the other run most
 * like it (the same reservation, the same order): the arguments that differ are the likeliest
 * mistake. A call of theirs the failed run never made, where each of its calls of that tool was
 * one a successful run made too, is a call it left out ("successful runs call
 * update_reservation_flights with reservation_id X7BYG1"), not other arguments. One contrast per
 * tool.
 */
function otherArguments(ep: Episode, successes: readonly Episode[], failed: ArchivedRecord): Contrast[] {
  const mineAll = writesOf(ep);
  const theirs = successes.flatMap(writesOf);
  const unmatchedMine = mineAll.filter((c) => !madeIn(theirs, c));
  const leftOut = writesOf(successes[0] as Episode).filter((c) => !madeIn(mineAll, c));
  const pairs: Array<Contrast | undefined> = [
    ...unmatchedMine.map((mine) => argumentContrast(mine, nearestOf(mine, theirs), failed)),
    ...leftOut.map((peer) => {
      const mine = nearestOf(peer, unmatchedMine);
      if (mine) return argumentContrast(mine, peer, failed);
      const anyMine = nearestOf(peer, mineAll);
      return anyMine ? omittedCall(peer, anyMine, failed) : undefined;
    }),
  ];
  const seen = new Set<string>();
  return pairs.flatMap((pair): Contrast[] => {
    if (!pair || seen.has(pair[0].tool)) return [];
    seen.add(pair[0].tool);
    return [pair];
  });
}

function argumentContrast(
  mine: ArchivedRecord,
  peer: ArchivedRecord | undefined,
  failed: ArchivedRecord,
): Contrast | undefined {
  if (!peer) return undefined;
  const [failedArgs, successfulArgs] = differingArgs(argsOf(mine), argsOf(peer));
  if (Object.keys(failedArgs).length === 0) return undefined;
  return [{ kind: 'other_arguments', tool: toolOf(mine) as string, failedArgs, successfulArgs }, [mine, failed, peer]];
}

/** A call the successful runs made and the failed run did not: named by the identifiers that set it apart. */
function omittedCall(peer: ArchivedRecord, nearestMine: ArchivedRecord, failed: ArchivedRecord): Contrast {
  const [, theirs] = differingArgs(argsOf(nearestMine), argsOf(peer));
  const ids = Object.entries(theirs).filter(([k]) => ID_ARG.test(k));
  const args = Object.fromEntries(ids.length > 0 ? ids : Object.entries(theirs));
  return [{ kind: 'omitted_tool', tool: toolOf(peer) as string, args }, [failed, peer]];
}

/** An argument that names what the call acts on (`reservation_id`, `orderId`). */
export const ID_ARG = /(?:^|_)id$|Id$/;

/** How many arguments of `a` differ from `b`'s. */
const distance = (a: ArchivedRecord, b: ArchivedRecord): number =>
  Object.keys(differingArgs(argsOf(a), argsOf(b))[0]).length;

/** Whether `calls` hold a call of the same tool with the same arguments as `call`. */
const madeIn = (calls: readonly ArchivedRecord[], call: ArchivedRecord): boolean =>
  calls.some((o) => toolOf(o) === toolOf(call) && distance(call, o) === 0);

/** The call of the same tool in `others` with the fewest differing arguments. */
function nearestOf(call: ArchivedRecord, others: readonly ArchivedRecord[]): ArchivedRecord | undefined {
  const same = others.filter((c) => toolOf(c) === toolOf(call));
  if (same.length === 0) return undefined;
  return same.reduce((a, b) => (distance(call, b) < distance(call, a) ? b : a));
}

/** A state-changing call the successful runs made only after the user confirmed, made here without asking. */
function skippedConfirmations(ep: Episode, successes: readonly Episode[]): Contrast[] {
  return callsOf(ep).flatMap((call, _i, calls): Contrast[] => {
    const tool = toolOf(call) as string;
    if (!WRITE_VERB.test(tool) || calls.find((c) => toolOf(c) === tool) !== call) return [];
    if (confirmationBefore(ep, call)) return [];
    for (const s of successes) {
      const peerCall = callsOf(s).find((c) => toolOf(c) === tool);
      const asked = peerCall ? confirmationBefore(s, peerCall) : undefined;
      if (asked) return [[{ kind: 'skipped_confirmation', tool }, [call, asked.ask, asked.yes]]];
    }
    return [];
  });
}

/** The agent's question and the user's yes since the last user request before `call`, if any. */
function confirmationBefore(
  ep: Episode,
  call: ArchivedRecord,
): { ask: ArchivedRecord; yes: ArchivedRecord } | undefined {
  const before = ep.records.slice(0, ep.records.indexOf(call));
  const yesIndex = before.findLastIndex((r) => r.record.kind === 'user_message');
  const yes = before[yesIndex];
  if (!yes || !YES.test(yes.record.text ?? '')) return undefined;
  const ask = before
    .slice(0, yesIndex)
    .findLast((r) => r.record.kind === 'agent_message' && CONFIRM_ASK.test(r.record.text ?? ''));
  return ask ? { ask, yes } : undefined;
}

export function argsOf(r: ArchivedRecord): Record<string, unknown> {
  const args = (r.record.payload as { args?: unknown } | undefined)?.args;
  return args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

/** Arguments whose values differ, as short text; nested values compared as JSON. */
function differingArgs(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
): [Record<string, string>, Record<string, string>] {
  const mine: Record<string, string> = {};
  const theirs: Record<string, string> = {};
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const [x, y] = [text(a[key]), text(b[key])];
    if (x === y) continue;
    // Of two lists (flights, passengers), only the items that differ say what went wrong.
    const [ax, by] = [a[key], b[key]];
    const onlyIn = (p: unknown[], q: unknown[]) => p.filter((v) => !q.some((w) => text(w) === text(v)));
    mine[key] = Array.isArray(ax) && Array.isArray(by) ? text(onlyIn(ax, by)) : x;
    theirs[key] = Array.isArray(ax) && Array.isArray(by) ? text(onlyIn(by, ax)) : y;
  }
  return [mine, theirs];
}

const text = (v: unknown): string => (v === undefined ? 'none' : typeof v === 'string' ? v : JSON.stringify(v));
