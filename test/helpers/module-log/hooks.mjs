// Module hooks (they run on the loader thread): every load, ESM or the entry of a CommonJS
// package imported from ESM, appends its URL. Registered first, they sit last in the chain, so
// they see the modules tsx compiles as well.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}
