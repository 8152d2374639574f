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
  /**
   * How the answer's shape is asked for: a JSON schema (OpenAI, vLLM, llama.cpp, Ollama's /v1),
   * JSON mode only, or nothing (the prompt and the parser still insist on JSON). A server that
   * refuses the format with a 400 naming it is asked again one step down, and the port keeps the
   * lower step for later calls. @default 'json_schema'
   */
  responseFormat?: ResponseFormatMode;
}

export const RESPONSE_FORMAT_MODES = ['json_schema', 'json_object', 'none'] as const;
export type ResponseFormatMode = (typeof RESPONSE_FORMAT_MODES)[number];

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
  let mode: ResponseFormatMode = options.responseFormat ?? 'json_schema';
  /** Sends in the current format; a refusal of the format steps down and is remembered. */
  const inSupportedFormat = async <R>(send: (m: ResponseFormatMode) => Promise<R>): Promise<R> => {
    for (;;) {
      try {
        return await send(mode);
      } catch (error) {
        const lower = refusesFormat(error) ? RESPONSE_FORMAT_MODES[RESPONSE_FORMAT_MODES.indexOf(mode) + 1] : undefined;
        if (!lower) throw error;
        mode = lower;
      }
    }
  };
  const chat: ChatFn = async (messages, { schema, maxTokens }) => {
    // One client session; a light per-call wrapper carries this call's completion cap, so
    // concurrent activities sharing the port never race on a mutable field.
    const llm = new OpenAI({ session: await base.session, model: options.model, temperature: 0, maxTokens });
    const response = await inSupportedFormat((m) => {
      const format = responseFormatFor(m, schema);
      return llm.chat({ messages, ...(format ? { responseFormat: format } : {}) });
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

/** A plain JSON schema (zod 4's own converter) rather than the client's zod helper. */
function responseFormatFor(mode: ResponseFormatMode, schema: z.ZodType) {
  switch (mode) {
    case 'json_schema':
      return {
        type: 'json_schema' as const,
        json_schema: { name: 'answer', schema: z.toJSONSchema(schema), strict: false },
      };
    case 'json_object':
      return { type: 'json_object' as const };
    case 'none':
      return undefined;
  }
}

/** A 400 that names the response format: the server does not support that way of asking. */
function refusesFormat(error: unknown): boolean {
  const e = error as { status?: unknown; message?: unknown } | null;
  return e?.status === 400 && /response_format|json_schema|json_object/i.test(String(e.message ?? ''));
}
