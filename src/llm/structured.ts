import { type z } from 'zod';
import { formatIssues } from '../contracts/format-issues.ts';
import {
  estimateTokens,
  LlmBudgetError,
  LlmOutputError,
  totalTokens,
  type Completion,
  type CompletionRequest,
  type LlmUsage,
} from './llm.ts';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** One raw chat round trip through a provider: the answer text and the tokens it cost. */
export type ChatFn = (
  messages: ChatMessage[],
  options: { schema: z.ZodType; maxTokens: number },
) => Promise<{ text: string; usage: LlmUsage }>;

/** Validation of a model answer: JSON first, then the schema. Both failures read back to the model. */
export function parseAnswer<T>(
  text: string,
  schema: z.ZodType<T>,
): { ok: true; value: T } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(jsonPart(text));
  } catch (error) {
    return { ok: false, error: `the answer is not valid JSON (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: formatIssues(parsed.error.issues, { root: '(root)', limit: 10 }) };
}

/** Models wrap JSON in code fences or a sentence now and then; take the outermost object. */
function jsonPart(text: string): string {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  return start >= 0 && end > start ? text.slice(start, end + 1) : text;
}

/** The retry-once protocol shared by every provider. */
export async function completeStructured<T>(chat: ChatFn, request: CompletionRequest<T>): Promise<Completion<T>> {
  const messages: ChatMessage[] = [
    { role: 'system', content: request.system },
    { role: 'user', content: request.user },
  ];
  const usage: LlmUsage = { promptTokens: 0, completionTokens: 0 };
  let lastError = '';
  for (let attempt = 1; attempt <= 2; attempt++) {
    const reserve = estimateTokens(...messages.map((m) => m.content)) + request.maxTokens;
    if (request.tokenLimit !== undefined && totalTokens(usage) + reserve > request.tokenLimit) {
      throw new LlmBudgetError(
        `attempt ${attempt} needs up to ${reserve} tokens; ${request.tokenLimit - totalTokens(usage)} left`,
        { ...usage },
      );
    }
    const answer = await chat(messages, {
      schema: request.responseSchema ?? request.schema,
      maxTokens: request.maxTokens,
    });
    usage.promptTokens += answer.usage.promptTokens;
    usage.completionTokens += answer.usage.completionTokens;
    const parsed = parseAnswer(answer.text, request.schema);
    if (parsed.ok) return { value: parsed.value, usage, attempts: attempt };
    lastError = parsed.error;
    messages.push(
      { role: 'assistant', content: answer.text.slice(0, 4000) },
      {
        role: 'user',
        content: `That answer was rejected: ${lastError}. Reply again with the corrected JSON object only.`,
      },
    );
  }
  throw new LlmOutputError(`invalid model output after a retry: ${lastError}`, usage);
}

/** A server that does not report usage is still metered, by the same pessimistic estimate. */
export function usageOr(
  reported: { prompt?: number | undefined; completion?: number | undefined },
  messages: ChatMessage[],
  text: string,
): LlmUsage {
  return {
    promptTokens: reported.prompt ?? estimateTokens(...messages.map((m) => m.content)),
    completionTokens: reported.completion ?? estimateTokens(text),
  };
}
