import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SEARCH_ATTRIBUTES } from '../../../src/contracts/search-attributes.ts';

// The deploy script runs where no node is (the admin-tools image), so it carries its own copy of
// the search attributes; this is what keeps that copy equal to the module the workflows use.

describe('search attributes', () => {
  it('deploy/temporal-namespace.sh registers exactly the attributes of src/contracts/search-attributes.ts', () => {
    const script = readFileSync('deploy/temporal-namespace.sh', 'utf8');
    const expected = Object.entries(SEARCH_ATTRIBUTES)
      .map(([name, type]) => `${name}=${type}`)
      .join(' ');
    const line = script.split('\n').find((l) => l.startsWith('SEARCH_ATTRIBUTES='));
    expect(line, 'replace the SEARCH_ATTRIBUTES= line of the script with this one').toBe(
      `SEARCH_ATTRIBUTES="${expected}"`,
    );
  });
});
