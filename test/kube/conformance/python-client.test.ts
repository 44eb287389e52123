// Conformance through the official Python client: one Python process runs every check (see
// python_checks.py) and each check becomes a test here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { runPython } from '../../helpers/python.ts';

const script = readFileSync(new URL('./python_checks.py', import.meta.url), 'utf8');
const EXPECTED_CHECKS = 22;

describe('python3-kubernetes client', () => {
  let cp: TestCluster;
  let results: Record<string, [boolean, string]> = {};
  before(async () => {
    cp = await startTestCluster({ historySize: 15 });
    const r = await runPython(cp.kubeconfigPath, script, 120_000);
    assert.equal(r.code, 0, `python failed: ${r.stderr}`);
    results = r.json() as typeof results;
  });
  after(async () => {
    await cp?.stop();
  });

  test('every check ran', () => {
    assert.equal(Object.keys(results).length, EXPECTED_CHECKS, Object.keys(results).join('\n'));
  });
  for (const name of script.matchAll(/@check\("([^"]+)"\)/g)) {
    test(name[1], () => {
      const r = results[name[1]];
      assert.ok(r, 'check did not run');
      assert.ok(r[0], r[1]);
    });
  }
});
