import pg from 'pg';

/**
 * Removes a schema with everything in it: the end of an evaluation, a benchmark or a test suite
 * that worked in a schema of its own. Connects as the owner (DATABASE_URL), not the app role.
 */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema.replace(/"/g, '""')}" CASCADE`);
  } finally {
    await client.end();
  }
}
