import { OpenAI } from '@llamaindex/openai';
import { z } from 'zod';
import type { Completion, CompletionRequest, Llm } from './llm.ts';
import { completeStructured, usageOr, type ChatFn } from './structured.ts';

export interface OpenAiLlmOptions {
  /** Base URL of an OpenAI-compatible server, e.g. `http://127.0.0.1:8000/v1`. */
  url: string;
  model: string;
  /** Local servers usually ignore it; the client insists on one. @default 'not-needed' */
  apiKey?: string;
  /** Per request. @default 60000 */
  timeoutMs?: number;
  /** HTTP-level retries inside the client (429, 5xx, connection errors). @default 2 */
  maxRetries?: number;
}

/** The LLM port over LlamaIndex's OpenAI provider: any OpenAI-compatible chat completions server. */
export function createOpenAiLlm(options: OpenAiLlmOptions): Llm {
  const base = new OpenAI({
    model: options.model,
    baseURL: options.url,
    apiKey: options.apiKey ?? 'not-needed',
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeoutMs ?? 60_000,
    temperature: 0,
  });
  const chat: ChatFn = async (messages, { schema, maxTokens }) => {
    // One client session; a light per-call wrapper carries this call's completion cap, so
    // concurrent activities sharing the port never race on a mutable field.
    const llm = new OpenAI({ session: await base.session, model: options.model, temperature: 0, maxTokens });
    const response = await llm.chat({
      messages,
      // A plain JSON schema (zod 4's own converter) rather than the client's zod helper.
      responseFormat: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: z.toJSONSchema(schema), strict: false },
      },
    });
    const text = typeof response.message.content === 'string' ? response.message.content : '';
    const usage = (response.raw as { usage?: { prompt_tokens?: number; completion_tokens?: number } } | null)?.usage;
    return {
      text,
      usage: usageOr({ prompt: usage?.prompt_tokens, completion: usage?.completion_tokens }, messages, text),
    };
  };
  return {
    name: `openai:${options.model}`,
    complete<T>(request: CompletionRequest<T>): Promise<Completion<T>> {
      return completeStructured(chat, request);
    },
  };
}
