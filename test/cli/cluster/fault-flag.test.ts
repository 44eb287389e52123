// `peerpods cluster start --fault <json>`: the control plane's fault injection from the command
// line, so a campaign or a manual check can run against a misbehaving server without code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../helpers/control-plane.ts';
import { kubectl } from '../../helpers/kubectl.ts';

const BIN = new URL('../../../bin/peerpods.js', import.meta.url).pathname;

function start(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'cluster', 'start', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

test('cluster start --fault injects the rule: the first ConfigMap create fails with kube’s 500, the next succeeds', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'peerpods-cli-'));
  const kubeconfig = join(dir, 'kc');
  const rule = { match: { verb: 'create', resource: 'configmaps' }, action: { type: 'status', code: 500 }, times: 1 };
  const run = start(['--kubeconfig', kubeconfig, '--fault', JSON.stringify(rule)]);
  try {
    await eventually(() => existsSync(kubeconfig) && run.output().includes('kubeconfig written'), {
      timeoutMs: 30_000,
      what: 'kubeconfig',
    });
    let r = await kubectl(kubeconfig, ['create', 'configmap', 'f', '--from-literal=a=1']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'error: failed to create configmap: Internal error occurred: injected fault\n');
    r = await kubectl(kubeconfig, ['create', 'configmap', 'f', '--from-literal=a=1']);
    assert.equal(r.code, 0, r.stderr);
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0, run.output());
  } finally {
    run.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cluster start refuses a --fault that is not JSON, or not a rule, with a non-zero exit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'peerpods-cli-'));
  try {
    const notJson = start(['--kubeconfig', join(dir, 'a'), '--fault', 'delay=5']);
    assert.notEqual(await notJson.exited, 0);
    assert.match(notJson.output(), /must be a JSON fault rule/);
    const notRule = start(['--kubeconfig', join(dir, 'b'), '--fault', '{"action":{"type":"explode"}}']);
    assert.notEqual(await notRule.exited, 0);
    assert.match(notRule.output(), /invalid fault rule: unknown action type "explode"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
