import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOpenAiLlm } from '../../../src/llm/openai.ts';
import { startScriptedServer, type ScriptedServer } from '../../helpers/scripted-openai-server.ts';

const Answer = z.object({ color: z.enum(['red', 'blue']) });
const Lenient = z.object({ color: z.string() });
const request = { system: 'You answer in JSON.', user: 'Pick a color.', schema: Answer, maxTokens: 20 };
const refusal = (message: string) => ({ status: 400, body: { error: { message, type: 'invalid_request_error' } } });

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => server.close());
beforeEach(() => {
  server.requests.length = 0;
  expect(server.pending()).toBe(0);
});
const formats = () => server.requests.map((r) => (r.body.response_format as { type?: string } | undefined)?.type);

describe('OpenAI-compatible port: asking for the answer in a format the server supports', () => {
  const llm = () => createOpenAiLlm({ url: server.url, model: 'm', maxRetries: 0 });

  it('steps down to JSON mode, then to no format, when a server refuses the format, and keeps the step', async () => {
    const port = llm();
    server.script(
      refusal("'response_format.type' json_schema is not supported by this model"),
      refusal('response_format json_object is not supported'),
      { content: '{"color":"red"}' },
      { content: '{"color":"blue"}' },
    );
    expect((await port.complete(request)).value).toEqual({ color: 'red' });
    expect((await port.complete(request)).value).toEqual({ color: 'blue' });
    expect(formats()).toEqual(['json_schema', 'json_object', undefined, undefined]);
  });

  it('starts from the configured format', async () => {
    server.script({ content: '{"color":"red"}' });
    await createOpenAiLlm({ url: server.url, model: 'm', maxRetries: 0, responseFormat: 'json_object' }).complete(
      request,
    );
    expect(formats()).toEqual(['json_object']);
  });

  it('rethrows any other bad request as it is', async () => {
    server.script(refusal('maximum context length exceeded'));
    await expect(llm().complete(request)).rejects.toThrow(/maximum context length/);
    expect(server.requests).toHaveLength(1);
  });

  it('asks with the response schema when one is given, and parses with the schema', async () => {
    server.script({ content: '{"color":"green"}' });
    const out = await llm().complete({ ...request, schema: Lenient, responseSchema: Answer });
    expect(out.value).toEqual({ color: 'green' });
    expect(server.requests[0]?.body.response_format).toMatchObject({
      json_schema: { schema: { properties: { color: { enum: ['red', 'blue'] } } } },
    });
  });
});
