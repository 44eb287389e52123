// vitest for the peerpods/testing runner check (test/testing/runners.test.ts): only this folder's
// *.spec.mjs files.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['*.spec.mjs'],
    // No results cache: it would land in node_modules/.vite beside this file.
    cache: false,
    // Starting a cluster is not a unit test's 5 s.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    server: {
      deps: {
        // The package resolves to the built dist/ of this checkout: load it as Node does for a
        // consumer (from node_modules), not through vite's transform.
        external: [/\/dist\//],
      },
    },
  },
});
