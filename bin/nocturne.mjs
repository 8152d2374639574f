#!/usr/bin/env node
// The `nocturne` command. Sources are TypeScript; tsx compiles them on load so that
// `npm ci` is the only install step (no build output to keep in sync).
import { existsSync } from 'node:fs';
import { register } from 'tsx/esm/api';

// The AWS SDK warns on every start that releases after January 2027 need Node 22; the
// pinned version supports Node 20, so the warning is noise for users of this release.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
// A reader that stops early (`nocturne notes list | head`) closes the pipe: that is the reader's
// choice, not a failure of the command, so end quietly instead of crashing on EPIPE.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
const { main } = await import('../src/cli/main.ts');
// The demo, evaluation and benchmark commands come from the repository's tools folder; the
// worker image copies only the product, and there they are simply absent.
const tools = new URL('../tools/cli.ts', import.meta.url);
const extensions = existsSync(tools) ? [(await import(tools.href)).registerTools] : [];
process.exitCode = await main(process.argv, { extensions });
