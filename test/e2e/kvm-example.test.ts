// The README's kvm-operator example, run as a user would: it must create the cluster, see it
// Created, tear it down and exit 0.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

it('examples/kvm/main.ts --once creates and tears down a workload cluster', { timeout: 240_000 }, async () => {
  const { stdout, stderr } = await run(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'examples/kvm/main.ts'), '--once'],
    { cwd: root, env: { ...process.env, LOG_LEVEL: 'info' }, timeout: 200_000 },
  );
  const out = stdout + stderr;
  assert.match(out, /cluster Created/);
  assert.match(out, /workloadNodes.*master-m1-/);
  assert.match(out, /kubectl --kubeconfig \S+management\.kubeconfig get kvmconfigs/);
  assert.match(out, /KVMConfig deleted; every object and finalizer released/);
});
