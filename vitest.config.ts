import { defineConfig } from 'vitest/config';

// Three projects: `unit` needs nothing running; `workflow` (Temporal dev server, fake
// activities) and `integration` run against the real local
// stack (Temporal, PostgreSQL + pgvector, SeaweedFS, embeddings), which its global setup
// starts when it is not already up. In CI a missing service fails the run.
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 30_000 },
      },
      {
        extends: true,
        test: {
          name: 'workflow',
          include: ['test/workflow/**/*.test.ts', 'test/replay/**/*.test.ts'],
          globalSetup: ['test/helpers/stack-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/helpers/stack-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
