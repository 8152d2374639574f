import { openDb } from '../../../src/db/open-db.ts';
import { describeDbContract } from '../../helpers/db-contract.ts';

// The embedded default: an in-memory PGlite with pgvector, migrated by the same SQL files.
const DIMENSION = 8;

describeDbContract('pglite', () => openDb({ kind: 'pglite', dataDir: ':memory:' }, { dimension: DIMENSION }), {
  dimension: DIMENSION,
});
