import type { EraseSubjectResult } from '../../../workflows/erase-subject.ts';
import { EraseSubjectInput } from '../../contracts/workflow-inputs.ts';
import { eraseSubjectId } from '../../contracts/workflow-ids.ts';
import { describeInputError } from '../../contracts/workflow-inputs.ts';
import { subjectKey } from '../../erasure/subject.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine } from '../output.ts';
import { startWorkflow } from '../start-workflow.ts';

export interface EraseOptions {
  tenant: string;
  user: string;
  wait?: boolean;
  json?: boolean;
}

/** `nocturne erase` */
export async function eraseCommand(opts: EraseOptions): Promise<void> {
  const parsed = EraseSubjectInput.safeParse({ tenantId: opts.tenant, userId: opts.user });
  if (!parsed.success) throw new UsageError(describeInputError(parsed.error));
  // The id names the subject by hash: no user id in workflow ids, and one erasure per subject at a time.
  const workflowId = eraseSubjectId(parsed.data.tenantId, subjectKey(parsed.data.tenantId, parsed.data.userId));
  const started = await startWorkflow<EraseSubjectResult>(
    'eraseSubjectWorkflow',
    workflowId,
    parsed.data,
    opts.wait ?? false,
  );
  if (opts.json) return printJson(started);
  printLine(`${opts.wait ? 'finished' : 'started'} ${started.workflowId}`);
  const r = started.result;
  if (!r) return;
  printLine(
    `  archive: ${r.archive.recordsRemoved} records removed; ${r.archive.rewritten} objects rewritten, ${r.archive.deleted} deleted; ${r.archive.notesRepointed} notes re-pointed`,
  );
  printLine(`  notes erased: ${r.notes.erased.join(', ') || 'none'}`);
  printLine(`  notes re-validated on other evidence: ${r.notes.revalidated.join(', ') || 'none'}`);
  const s = r.scrubbed;
  printLine(
    `  scrubbed: ${s.versionsScrubbed} versions, ${s.embeddingsRemoved} embeddings, ${s.usageRowsDeleted} usage rows, ${s.runWorkRowsDeleted} run work rows, ${s.auditEntriesRedacted} audit reasons`,
  );
  printLine(`  scan: clean over ${r.scan.archiveObjectsScanned} archive objects and every note store table`);
}
