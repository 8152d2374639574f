// Preloaded with `node --import`: records the URL of every module the process loads in the file
// named by NOCTURNE_MODULE_LOG, so a test can assert what a command did not load.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url, { data: { file: process.env.NOCTURNE_MODULE_LOG } });
