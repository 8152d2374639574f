import { rebuildActiveIndex } from '../../archive/active-index.ts';
import { loadConfig } from '../../config.ts';
import { withArchive } from '../../runtime.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine, progress } from '../output.ts';

export interface IndexTenantsOptions {
  rebuild?: boolean;
  json?: boolean;
}

/** `nocturne index tenants --rebuild` */
export async function indexTenantsCommand(opts: IndexTenantsOptions): Promise<void> {
  if (!opts.rebuild)
    throw new UsageError('the writer keeps the index current: --rebuild marks what older writers left unmarked');
  const config = loadConfig();
  await withArchive(config, async (archive) => {
    const line = opts.json ? undefined : progress('listing the archive');
    const result = await rebuildActiveIndex(archive, ({ seen }) => line?.update(seen));
    line?.done();
    if (opts.json) printJson({ location: archive.location, ...result });
    else printLine(`${result.tenants} tenant(s) over ${result.partitions} tenant-day(s) marked in ${archive.location}`);
  });
}
