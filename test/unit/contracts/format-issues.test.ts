import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatIssues } from '../../../src/contracts/format-issues.ts';

const issuesOf = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a parse failure');
  return parsed.error.issues;
};

describe('formatIssues', () => {
  const Shape = z.object({ a: z.number(), b: z.object({ c: z.string() }), d: z.boolean(), e: z.string() });
  const four = issuesOf(Shape, { b: {} });

  it('names each bad field by its path, in order, on one line', () => {
    expect(formatIssues(four, { root: '(input)' })).toMatch(/^a: .+; b\.c: .+; d: .+; e: .+$/);
  });

  it('names an issue about the whole value by the root label, or by nothing', () => {
    const whole = issuesOf(z.string(), 1);
    expect(formatIssues(whole, { root: '(body)' })).toMatch(/^\(body\): /);
    expect(formatIssues(whole, { root: '' })).toMatch(/^: /);
  });

  it('shows at most `limit` issues and, when asked, counts the rest', () => {
    expect(formatIssues(four, { root: '(input)', limit: 2 })).toMatch(/^a: .+; b\.c: [^;]+$/);
    expect(formatIssues(four, { root: '(record)', limit: 3, countRest: true })).toMatch(/; d: .+ \(\+1 more\)$/);
    expect(formatIssues(four, { root: '(record)', limit: 4, countRest: true })).not.toMatch(/more\)$/);
  });

  it('prints numeric and symbol path segments', () => {
    const issues = [{ path: [0, Symbol('s'), 'k'], message: 'bad' }];
    expect(formatIssues(issues, { root: '(input)' })).toBe('0.Symbol(s).k: bad');
  });
});
