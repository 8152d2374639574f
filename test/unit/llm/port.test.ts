import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LlmBudgetError, LlmOutputError } from '../../../src/llm/llm.ts';
import { createOllamaLlm } from '../../../src/llm/ollama.ts';
import { createOpenAiLlm } from '../../../src/llm/openai.ts';
import { parseAnswer } from '../../../src/llm/structured.ts';
import { startScriptedServer, type ScriptedServer } from '../../helpers/scripted-openai-server.ts';

const Answer = z.object({ color: z.enum(['red', 'blue']), count: z.number().int().min(1) });
const request = { system: 'You answer in JSON.', user: 'Pick a color.', schema: Answer, maxTokens: 50 };

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => server.close());
beforeEach(() => {
  server.requests.length = 0;
  expect(server.pending()).toBe(0);
});

describe('OpenAI-compatible port (real LlamaIndex client against a scripted server)', () => {
  const llm = () => createOpenAiLlm({ url: server.url, model: 'scripted-model', apiKey: 'k', maxRetries: 0 });

  it('returns the validated value and the usage the server reported, sending a JSON schema and the token cap', async () => {
    server.script({ content: '{"color":"red","count":2}', promptTokens: 31, completionTokens: 7 });
    const out = await llm().complete(request);
    expect(out).toEqual({
      value: { color: 'red', count: 2 },
      usage: { promptTokens: 31, completionTokens: 7 },
      attempts: 1,
    });
    const sent = server.requests[0]?.body;
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(sent?.model).toBe('scripted-model');
    expect(sent?.max_tokens).toBe(50);
    expect(sent?.messages?.map((m) => m.role)).toEqual(['system', 'user']);
    expect(sent?.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { schema: { properties: { color: { enum: ['red', 'blue'] } } } },
    });
  });

  it('retries once with the validation error appended, and counts both attempts', async () => {
    server.script(
      { content: '{"color":"green","count":2}', promptTokens: 30, completionTokens: 8 },
      { content: '```json\n{"color":"blue","count":1}\n```', promptTokens: 60, completionTokens: 9 },
    );
    const out = await llm().complete(request);
    expect(out).toEqual({
      value: { color: 'blue', count: 1 },
      usage: { promptTokens: 90, completionTokens: 17 },
      attempts: 2,
    });
    const retry = server.requests[1]?.body.messages ?? [];
    expect(retry.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(retry[2]?.content).toBe('{"color":"green","count":2}');
    expect(retry[3]?.content).toMatch(/rejected: color: /);
  });

  it('gives up after a second invalid answer, carrying the tokens spent', async () => {
    server.script(
      { content: 'not json at all', promptTokens: 30, completionTokens: 4 },
      { content: '{"color":"red"}', promptTokens: 50, completionTokens: 5 },
    );
    const error = await llm()
      .complete(request)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmOutputError);
    expect((error as LlmOutputError).usage).toEqual({ promptTokens: 80, completionTokens: 9 });
    expect((error as LlmOutputError).message).toMatch(/count/);
    expect(server.requests).toHaveLength(2);
  });

  it('meters a server that reports no usage by a pessimistic estimate, never as free', async () => {
    server.script({ content: '{"color":"red","count":3}' });
    const out = await llm().complete(request);
    expect(out.usage.promptTokens).toBeGreaterThanOrEqual(Math.ceil((request.system.length + request.user.length) / 4));
    expect(out.usage.completionTokens).toBeGreaterThan(0);
  });

  it('does not send an attempt that cannot fit the token limit', async () => {
    const error = await llm()
      .complete({ ...request, tokenLimit: 40 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmBudgetError);
    expect((error as LlmBudgetError).usage).toEqual({ promptTokens: 0, completionTokens: 0 });
    expect(server.requests).toHaveLength(0);
  });

  it('does not send a retry that cannot fit, reporting what the first attempt spent', async () => {
    server.script({ content: '{}', promptTokens: 20, completionTokens: 2 });
    const error = await llm()
      .complete({ ...request, tokenLimit: 120 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmBudgetError);
    expect((error as LlmBudgetError).usage).toEqual({ promptTokens: 20, completionTokens: 2 });
    expect(server.requests).toHaveLength(1);
  });

  it('rethrows transport faults as they are (the activity retries them)', async () => {
    server.script({ status: 500 });
    const error = await llm()
      .complete(request)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(LlmOutputError);
  });
});

describe('Ollama port (LlamaIndex Ollama provider against a scripted /api/chat)', () => {
  it('sends the schema as format and the cap as num_predict, and reads Ollama usage counts', async () => {
    server.script({ content: '{"color":"blue","count":4}', promptTokens: 12, completionTokens: 6 });
    const out = await createOllamaLlm({ url: `${server.ollamaUrl}/v1`, model: 'llama3.2' }).complete(request);
    expect(out).toEqual({
      value: { color: 'blue', count: 4 },
      usage: { promptTokens: 12, completionTokens: 6 },
      attempts: 1,
    });
    const sent = server.requests[0];
    expect(sent?.path).toBe('/api/chat');
    expect(sent?.body.model).toBe('llama3.2');
    expect(sent?.body.options).toMatchObject({ num_predict: 50, temperature: 0 });
    expect(sent?.body.format).toMatchObject({ type: 'object', properties: { count: { type: 'integer' } } });
  });
});

describe('parseAnswer', () => {
  it.each([
    ['{"color":"red","count":1}', true],
    ['Sure! {"color":"red","count":1} Hope that helps.', true],
    ['{"color":"red","count":0}', false],
    ['{"color":', false],
    ['', false],
  ])('%s → ok=%s', (text, ok) => {
    expect(parseAnswer(text, Answer).ok).toBe(ok);
  });
});
