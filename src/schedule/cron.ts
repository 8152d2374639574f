const NAMES: Array<[string, number, number]> = [
  ['minute', 0, 59],
  ['hour', 0, 23],
  ['day of month', 1, 31],
  ['month', 1, 12],
  ['day of week', 0, 7],
];
const PART = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/;

/**
 * Checks a 5-field numeric cron expression (`*`, `n`, `a-b`, lists, `/step`) before it reaches
 * the server, so a typo is a usage error naming the field rather than a server error.
 * Returns the reason, or undefined when the expression is valid.
 */
export function validateCron(cron: string): string | undefined {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5)
    return `expected 5 fields (minute hour day-of-month month day-of-week), got ${fields.length}`;
  for (const [i, field] of fields.entries()) {
    const [name, min, max] = NAMES[i] ?? ['field', 0, 0];
    for (const part of field.split(',')) {
      const m = PART.exec(part);
      if (!m) return `${name}: cannot read ${JSON.stringify(part)}`;
      const [, , from, to, step] = m;
      const bad = [from, to]
        .filter((n) => n !== undefined)
        .map(Number)
        .find((n) => n < min || n > max);
      if (bad !== undefined) return `${name}: ${bad} is outside ${min}-${max}`;
      if (from !== undefined && to !== undefined && Number(to) < Number(from))
        return `${name}: range ${from}-${to} runs backwards`;
      if (step !== undefined && Number(step) === 0) return `${name}: a step of 0`;
    }
  }
  return undefined;
}
