// ESLint flat config: typescript-eslint's recommended rules over every TypeScript file, and the
// README's boundaries between the parts, checked on every import.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import peerpods from './scripts/lint/boundaries.js';

// The boundaries (README "Architecture"). The parts are the top-level folders of src/. A file is
// governed by the first entry whose `files` matches it and may import only what `allow` lists.
// `{part}` is one of the parts and `{dir}` any one folder, the same in `files` and `allow`;
// `**` is anything below. Static and dynamic imports, `export … from` and type-only imports all
// count. The built-in `no-restricted-imports` matches specifier strings ('../runtime/index.ts'
// means different files from different folders), so this rule resolves each specifier against the
// importing file's path and matches the resulting file.
const floor = 'src/apimachinery/**'; // the shared floor: anyone may import any of its modules
const publicEntries = 'src/*/index.ts';
// The light second entry of a part: the defaults its CLI flags show, so `--help` loads no part.
const defaultsEntries = 'src/*/defaults.ts';
const boundaries = {
  root: import.meta.dirname,
  parts: ['apimachinery', 'kube', 'runtime', 'peerpod', 'kvm', 'testing', 'cli'],
  entries: [
    { files: 'src/apimachinery/**', allow: [floor], rule: 'apimachinery imports nothing of the project but itself' },
    { files: 'src/kube/**', allow: [floor, 'src/kube/**'], rule: 'kube may import apimachinery and kube only' },
    {
      files: 'src/runtime/**',
      allow: [floor, 'src/runtime/**'],
      rule: 'runtime may import apimachinery and runtime only',
    },
    {
      files: 'src/peerpod/**',
      allow: [floor, 'src/peerpod/**', 'src/runtime/index.ts'],
      rule: 'peerpod may import apimachinery, itself, and runtime through src/runtime/index.ts only; never kube, never kvm',
    },
    {
      files: 'src/kvm/**',
      allow: [floor, 'src/kvm/**', 'src/runtime/index.ts'],
      rule: 'kvm may import apimachinery, itself, and runtime through src/runtime/index.ts only; never kube, never peerpod',
    },
    {
      files: 'src/testing/**',
      allow: [floor, 'src/testing/**', 'src/kube/index.ts', 'src/runtime/index.ts'],
      rule: 'testing may import apimachinery, itself, and kube and runtime through their public entries only',
    },
    {
      files: 'src/cli/**',
      allow: [floor, 'src/cli/**', publicEntries, defaultsEntries],
      rule: 'cli may import apimachinery, itself, and the other parts through their public entries src/<part>/index.ts (and defaults.ts) only',
    },
    { files: 'src/**', allow: [], rule: 'src/ holds only the parts' },
    {
      files: 'test/{part}/**',
      allow: [floor, 'src/{part}/**', 'test/{part}/**', 'test/helpers/**', publicEntries],
      rule: "a part's tests may import its internals, their own folder, test/helpers, and other parts through src/<part>/index.ts only",
    },
    {
      files: 'test/examples/**',
      allow: [floor, 'examples/**', 'test/examples/**', 'test/helpers/**', publicEntries],
      rule: 'tests of the examples may import the examples, test/helpers, and the parts through src/<part>/index.ts only',
    },
    {
      files: 'test/{dir}/**',
      allow: [floor, 'test/{dir}/**', 'test/helpers/**', publicEntries],
      rule: 'other tests (e2e, helpers, tooling) may import their own folder, test/helpers, and the parts through src/<part>/index.ts only',
    },
    {
      files: 'examples/{dir}/**',
      allow: [floor, 'examples/{dir}/**', publicEntries],
      rule: 'an example may import its own files and the parts through src/<part>/index.ts only',
    },
    { files: 'bench/**', unchecked: 'benchmarks seed stores through internals on purpose' },
    { files: 'scripts/**', unchecked: 'build and test tooling, not part of the package' },
    { files: 'bin/**', unchecked: "bin/peerpods.js only starts the CLI's main module" },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.peerpods/**', 'bench/results/**', 'config/**', '.scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { peerpods },
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        performance: 'readonly',
        fetch: 'readonly',
        queueMicrotask: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'peerpods/boundaries': ['error', boundaries],
      'no-constant-condition': ['error', { checkLoops: false }],
      // A closure may read a variable that is assigned once, later (watch handlers).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['src/**'],
    rules: {
      // Objects from another realm (jest's vm modules, structuredClone's results there) have another
      // prototype, and isDeepStrictEqual then calls equal JSON unequal: a controller that compares
      // with it rewrites the same object forever. JSON is compared with apimachinery's deepEqual.
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'node:util',
              importNames: ['isDeepStrictEqual'],
              message: 'use deepEqual from src/apimachinery/json',
            },
          ],
        },
      ],
    },
  },
);
