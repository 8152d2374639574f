#!/usr/bin/env node
// The `nocturne` command. Sources are TypeScript; tsx compiles them on load so that
// `npm ci` is the only install step (no build output to keep in sync).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv);
