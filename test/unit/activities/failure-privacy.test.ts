import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { asActivityFailure } from '../../../activities/deps.ts';
import { ArchiveManifestError } from '../../../src/archive/errors.ts';
import { FailureType } from '../../../src/contracts/failure-types.ts';
import { NoteVersionConflictError } from '../../../src/db/index.ts';
import { PermanentFailure } from '../../../src/ports.ts';

// What an activity's failure carries into the workflow's history: never the text a foreign
// error quotes, at any depth of its cause chain.

const NAME = 'Zephyrine';

/** Every string of a failure and its causes: message, stack, type. */
function strings(f: unknown): string[] {
  const out: string[] = [];
  for (let e = f as (Error & { type?: string }) | undefined; e; e = e.cause as typeof e) {
    out.push(e.message, e.stack ?? '', e.type ?? '');
  }
  return out;
}

function parseError(): Error {
  try {
    JSON.parse(`{"userIds":[${NAME}.okonkwo@example.com"]}`);
  } catch (e) {
    return e as Error;
  }
  throw new Error('parsed');
}

describe('asActivityFailure', () => {
  it('cleans a foreign error: retryable, of its own type, without the quoted text', () => {
    const original = parseError();
    expect(original.message).toContain(NAME); // teeth: the parser quotes it
    const f = asActivityFailure(original) as ApplicationFailure;
    expect(f).toBeInstanceOf(ApplicationFailure);
    expect([f.type, f.nonRetryable]).toEqual(['SyntaxError', false]);
    expect(strings(f).join('\n')).not.toContain(NAME);
    expect(f.stack).toContain('at ');
  });

  it('drops the causes a known error carries, keeping it as a cleaned cause', () => {
    const known = new ArchiveManifestError('raw/tenant=t/date=2026-11-02/a-1.manifest.json', 'bad', {
      cause: parseError(),
    });
    const f = asActivityFailure(known) as ApplicationFailure;
    expect([f.type, f.nonRetryable]).toEqual([FailureType.ArchiveManifestInvalid, true]);
    expect((f.cause as ApplicationFailure).type).toBe('ArchiveManifestError');
    expect(f.cause?.cause).toBeUndefined();
    expect(strings(f).join('\n')).not.toContain(NAME);
  });

  it('names a database error by SQLSTATE and identifiers, never by the value it quotes', () => {
    const pg = Object.assign(new Error(`invalid input value for enum note_status: "${NAME}"`), {
      code: '22P02',
      table: 'note_versions',
      column: 'status',
    });
    const f = asActivityFailure(pg) as ApplicationFailure;
    expect(f.message).toBe(
      'invalid input value for enum note_status: "…" (SQLSTATE 22P02 table note_versions column status)',
    );
    expect(strings(f).join('\n')).not.toContain(NAME);
  });

  it('keeps permanent failures and conflicts as they were, and failures raised on purpose untouched', () => {
    const conflict = asActivityFailure(new NoteVersionConflictError('t', 'n1', 2, 3)) as ApplicationFailure;
    expect([conflict.type, conflict.nonRetryable]).toEqual([FailureType.NoteVersionConflict, true]);
    expect(conflict.message).toContain('note n1 (tenant t): expected version 2');
    const permanent = asActivityFailure(new PermanentFailure('run r1 not found', FailureType.RunNotFound));
    expect(permanent).toMatchObject({ message: 'run r1 not found', type: FailureType.RunNotFound, nonRetryable: true });
    const raised = ApplicationFailure.retryable('as raised', FailureType.TenantLocked);
    expect(asActivityFailure(raised)).toBe(raised);
  });
});
