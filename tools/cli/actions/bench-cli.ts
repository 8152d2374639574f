import { printJson, printLine } from '../../../src/cli/output.ts';
import { runCliStartupBench } from '../../bench/cli-startup.ts';

export interface CliBenchOptions {
  runs: number;
  json?: boolean;
}

/** `nocturne bench cli` */
export async function cliBenchCommand(opts: CliBenchOptions): Promise<void> {
  const r = runCliStartupBench({ runs: opts.runs });
  if (opts.json) return printJson(r);
  printLine(`command start-up, median of ${r.runs} runs each (alternating)`);
  printLine(`  nocturne --help          ${r.help.medianMs} ms  (${r.help.runsMs.join(', ')})`);
  printLine(`  node --import tsx -e ''  ${r.tsxFloor.medianMs} ms  (${r.tsxFloor.runsMs.join(', ')})`);
  printLine(`  --help above the floor   ${r.overheadMs} ms`);
}
