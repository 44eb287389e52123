// `peerpods cluster start` as a user runs it: a foreground process that writes the kubeconfig
// when ready, serves kubectl, and stops cleanly on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../helpers/control-plane.ts';
import { kubectl } from '../../helpers/kubectl.ts';

const BIN = new URL('../../../bin/peerpods.js', import.meta.url).pathname;

test('cluster start writes a kubeconfig, serves kubectl, and exits 0 on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'peerpods-cli-'));
  const kubeconfig = join(dir, 'kc');
  const child = spawn(process.execPath, [BIN, 'cluster', 'start', '--port', '0', '--kubeconfig', kubeconfig], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await eventually(() => existsSync(kubeconfig) && output.includes('listening on https://127.0.0.1:'), {
      timeoutMs: 30_000,
      what: 'kubeconfig',
    });
    assert.equal(statSync(kubeconfig).mode & 0o077, 0, 'kubeconfig must not be readable by others');
    let r = await kubectl(kubeconfig, ['create', 'configmap', 'cli', '--from-literal=a=1']);
    assert.equal(r.code, 0, r.stderr);
    r = await kubectl(kubeconfig, ['get', 'configmap', 'cli', '-o', 'jsonpath={.data.a}']);
    assert.equal(r.stdout, '1');
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output);
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cluster start rejects a bad port with a clear message and a non-zero exit', async () => {
  const child = spawn(process.execPath, [BIN, 'cluster', 'start', '--port', 'abc'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  assert.notEqual(code, 0);
  assert.match(err, /must be a port number/);
});

test('cluster start runs --local-image containers as processes: their output reaches kubectl logs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'peerpods-cli-'));
  const kubeconfig = join(dir, 'kc');
  const child = spawn(
    process.execPath,
    [
      BIN,
      'cluster',
      'start',
      '--port',
      '0',
      '--nodes',
      '1',
      '--kubeconfig',
      kubeconfig,
      '--state-dir',
      join(dir, 'state'),
      '--local-image',
      'example.com/tool:dev',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await eventually(() => output.includes('kubeconfig written'), { timeoutMs: 30_000, what: 'kubeconfig' });
    let r = await kubectl(kubeconfig, [
      'run',
      'tool',
      '--image=example.com/tool:dev',
      '--restart=Never',
      '--command',
      '--',
      'sh',
      '-c',
      'echo "from $HOSTNAME"',
    ]);
    assert.equal(r.code, 0, r.stderr);
    await eventually(
      async () =>
        (await kubectl(kubeconfig, ['get', 'pod', 'tool', '-o', 'jsonpath={.status.phase}'])).stdout === 'Succeeded',
      {
        timeoutMs: 30_000,
        what: 'the process ran to completion',
      },
    );
    r = await kubectl(kubeconfig, ['logs', 'tool']);
    assert.equal(r.stdout, 'from tool\n');
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output);
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

// kube-apiserver's --enable-admission-plugins; the plugin's message is
// kubernetes/kubernetes plugin/pkg/admission/gc/gc_admission.go's.
test('cluster start --enable-admission-plugins turns on OwnerReferencesPermissionEnforcement', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'peerpods-cli-'));
  const kubeconfig = join(dir, 'kc');
  const child = spawn(
    process.execPath,
    [
      BIN,
      'cluster',
      'start',
      '--port',
      '0',
      '--kubeconfig',
      kubeconfig,
      '--enable-admission-plugins=OwnerReferencesPermissionEnforcement',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await eventually(() => existsSync(kubeconfig) && output.includes('kubeconfig written'), {
      timeoutMs: 30_000,
      what: 'kubeconfig',
    });
    for (const args of [
      ['create', 'role', 'cm', '--verb=create', '--resource=configmaps'],
      ['create', 'rolebinding', 'cm', '--role=cm', '--user=alice'],
    ]) {
      const r = await kubectl(kubeconfig, args);
      assert.equal(r.code, 0, r.stderr);
    }
    const uid = (await kubectl(kubeconfig, ['get', 'namespace', 'default', '-o', 'jsonpath={.metadata.uid}'])).stdout;
    const owner = { apiVersion: 'v1', kind: 'Namespace', name: 'default', uid, blockOwnerDeletion: true };
    const manifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dependent', ownerReferences: [owner] } };
    const r = await kubectl(kubeconfig, ['create', '-f', '-', '--as=alice'], { input: JSON.stringify(manifest) });
    assert.notEqual(r.code, 0);
    assert.ok(
      r.stderr.includes(
        'configmaps "dependent" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a ' +
          "resource you can't set finalizers on: , <nil>",
      ),
      r.stderr,
    );
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output);
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cluster start refuses an admission plugin it does not implement', async () => {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'cluster',
      'start',
      '--port',
      '0',
      '--enable-admission-plugins',
      'OwnerReferencesPermissionEnforcement,Bogus',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  assert.notEqual(code, 0);
  assert.match(err, /enable-admission-plugins plugin "Bogus" is unknown/);
  assert.doesNotMatch(err, /"OwnerReferencesPermissionEnforcement" is unknown/);
});
