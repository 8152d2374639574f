// Lint rules that catch what the type checker does not: floating promises (a lost activity or
// query), type-only imports, and the import boundaries of deterministic workflow code and pure policies.
import tseslint from 'typescript-eslint';

const nodeAndIo = [
  'pg',
  'pgvector',
  '@electric-sql/*',
  '@aws-sdk/*',
  'llamaindex',
  '@llamaindex/*',
  'node:*',
  'fs',
  'path',
  'crypto',
  'os',
  'child_process',
];

/** The product (src, workflows, activities, policies) stands alone: the worker image ships without tools/ and test/. */
const productBoundary = {
  group: ['**/tools/**', '**/test/**', 'tools/**', 'test/**'],
  message: 'the product imports nothing from tools/ or test/ (the worker image ships without them)',
};

/** no-restricted-imports sees only static imports; this catches `await import('../tools/…')`. */
const dynamicBoundary = {
  selector: String.raw`ImportExpression[source.value=/(^|\/)(tools|test)\//]`,
  message: productBoundary.message,
};

export default tseslint.config(
  { ignores: ['node_modules/**', '.tools/**', 'var/**', 'dist/**', 'packages/*/dist/**', 'test/replay/histories/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    files: ['src/**/*.ts', 'activities/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [productBoundary] }],
      'no-restricted-syntax': ['error', dynamicBoundary],
    },
  },
  {
    files: ['workflows/**/*.ts', 'test/replay/altered/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            productBoundary,
            { group: nodeAndIo, message: 'workflow code is deterministic: no I/O modules' },
            {
              group: ['**/src/config*', '**/src/db/**', '**/src/archive/**', '**/src/worker*'],
              message: 'workflows import only types from these',
              allowTypeImports: true,
            },
            {
              group: ['**/activities/**'],
              message: 'workflows import only types from activities/',
              allowTypeImports: true,
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'process', message: 'no environment access in workflow code' }],
      'no-restricted-syntax': [
        'error',
        dynamicBoundary,
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
          message: 'use the workflow API, not Math.random',
        },
      ],
    },
  },
  {
    files: ['policies/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            productBoundary,
            { group: nodeAndIo, message: 'policies are pure functions' },
            {
              group: ['**/src/db/**', '**/src/archive/**', '**/activities/**', '**/src/config*'],
              message: 'policies import only other policies and plain types',
              allowTypeImports: true,
            },
          ],
        },
      ],
      'no-restricted-syntax': ['error', dynamicBoundary],
    },
  },
  {
    // src/db has one public surface (src/db/index.ts, which documents its calling convention):
    // code outside it imports nothing deeper, so the files behind it can move freely. The db
    // unit tests are the exception: they test the pure planner and hashing behind the surface.
    // no-restricted-syntax rather than no-restricted-imports, so other blocks' import rules stay in force.
    files: ['src/**/*.ts', 'activities/**/*.ts'],
    ignores: ['src/db/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            ':matches(ImportDeclaration, ExportNamedDeclaration, ExportAllDeclaration)[source.value=/(^|[\\u002F])db[\\u002F](?!index[.]ts$)/]',
          message: 'import the note store from src/db/index.ts, not from a file behind it',
        },
      ],
    },
  },
  {
    // Tools and tests may also run statements outside a tenant through src/db/unscoped.ts
    // (a benchmark's DDL, a catalog check); the product never does.
    files: ['tools/**/*.ts', 'test/**/*.ts'],
    ignores: ['test/unit/db/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            ':matches(ImportDeclaration, ExportNamedDeclaration, ExportAllDeclaration)[source.value=/(^|[\\u002F])db[\\u002F](?!(index|unscoped)[.]ts$)/]',
          message: 'import the note store from src/db/index.ts (or src/db/unscoped.ts in tools and tests)',
        },
      ],
    },
  },
);
