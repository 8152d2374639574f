import { approxTokens, type Turn, type TurnHit, type TurnRetriever } from './turns.ts';

/** Context an agent with a bounded window keeps of its past, in approximate tokens. @default 4000 */
const RECENT_HISTORY_TOKENS = 4000;

/**
 * Bounded recent history: the latest turns that fit the window, newest first, whatever the
 * question. What an agent without memory but with a long context would see.
 */
export function recentHistory(turns: readonly Turn[], windowTokens = RECENT_HISTORY_TOKENS): TurnRetriever {
  const window: TurnHit[] = [];
  let used = 0;
  for (let i = turns.length - 1; i >= 0; i--) {
    const tokens = approxTokens((turns[i] as Turn).text);
    if (used + tokens > windowTokens) break;
    used += tokens;
    window.push({ turn: i, score: 1 });
  }
  return { search: async (_query, k) => window.slice(0, k) };
}
