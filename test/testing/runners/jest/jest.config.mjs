// jest for the peerpods/testing runner check (test/testing/runners.test.ts): only this folder's
// *.test.mjs files, as native ES modules (node --experimental-vm-modules), no transform.
export default {
  rootDir: import.meta.dirname,
  testMatch: ['<rootDir>/*.test.mjs'],
  transform: {},
  testEnvironment: 'node',
  // Starting a cluster is not a unit test's 5 s.
  testTimeout: 60_000,
  cache: false,
};
