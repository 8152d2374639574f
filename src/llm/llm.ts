import type { z } from 'zod';

/** Tokens a call consumed, as the server reported them (or estimated when it did not). */
export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface CompletionRequest<T> {
  system: string;
  user: string;
  /** The answer must be a JSON value this schema accepts; it is also sent as the response format. */
  schema: z.ZodType<T>;
  /**
   * Sent as the response format instead of `schema`, when the caller parses more leniently than
   * it asks (a batch whose items are checked one by one, so one bad item does not fail the rest).
   */
  responseSchema?: z.ZodType;
  /** Upper bound on completion tokens per attempt (sent to the server, and reserved against `tokenLimit`). */
  maxTokens: number;
  /**
   * Tokens this call may spend across both attempts. An attempt whose conservative estimate
   * (prompt estimate + `maxTokens`) does not fit is not sent: `LlmBudgetError`.
   */
  tokenLimit?: number;
}

export interface Completion<T> {
  value: T;
  usage: LlmUsage;
  /** 1 when the first answer was valid, 2 when the retry was needed. */
  attempts: number;
}

/**
 * The LLM port: one structured completion. An invalid answer (not JSON, or rejected by the
 * schema) is retried once with the validation error appended; a second invalid answer throws
 * `LlmOutputError`. Transport faults are rethrown as they are (the activity retries them).
 */
export interface Llm {
  /** e.g. `openai:gpt-4o-mini`; named in proposal reasons so the source of a note is visible. */
  readonly name: string;
  complete<T>(request: CompletionRequest<T>): Promise<Completion<T>>;
}

/** The model's answer failed validation twice. Carries the tokens both attempts spent. */
export class LlmOutputError extends Error {
  override name = 'LlmOutputError';
  constructor(
    message: string,
    readonly usage: LlmUsage,
  ) {
    super(message);
  }
}

/** The next attempt would not fit the token limit; `usage` is what was already spent. */
export class LlmBudgetError extends Error {
  override name = 'LlmBudgetError';
  constructor(
    message: string,
    readonly usage: LlmUsage,
  ) {
    super(message);
  }
}

export const totalTokens = (u: LlmUsage): number => u.promptTokens + u.completionTokens;

/**
 * A deliberately pessimistic token estimate (≈3 characters per token, plus per-message
 * overhead): real tokenizers average closer to 4 characters per token for English and JSON,
 * so reserving by this estimate keeps metered spend within the budget.
 */
export function estimateTokens(...texts: string[]): number {
  return texts.reduce((n, t) => n + Math.ceil(t.length / 3) + 8, 0);
}
