#!/usr/bin/env node
// The `nocturne` command. Sources are TypeScript; tsx compiles them on load so that
// `npm ci` is the only install step (no build output to keep in sync).
import { register } from 'tsx/esm/api';

// The AWS SDK warns on every start that releases after January 2027 need Node 22; the
// pinned version supports Node 20, so the warning is noise for users of this release.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv);
