import type { Command } from 'commander';
import type { AuditVerifyOptions } from '../actions/audit.ts';

export function registerAudit(program: Command): void {
  const audit = program.command('audit').description("the tenant's audit chain");
  audit
    .command('verify')
    .description(
      'recompute the chain (keyed hashes with NOCTURNE_AUDIT_KEY, the digest of every recorded version) and compare it with the heads published to the archive; exit 1 when it does not hold',
    )
    .requiredOption('--tenant <id>', 'tenant whose chain to verify')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: AuditVerifyOptions) => (await import('../actions/audit.ts')).auditVerifyCommand(opts));
}
