// Control planes on etcd, through real clients: one with the controllers and a local etcd in its
// data directory, a second that serves the API only in front of the same etcd (as a second
// kube-apiserver would). What is written through either is read, watched and acted on through the
// other; a stale write through one loses to a fresh one through the other with kube's 409; and
// `peerpods cluster start --local-etcd` resumes after a SIGKILL with nothing lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { EtcdStorage } from '../../../src/kube/index.ts';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { call } from '../../helpers/https.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import { STATE_TMPDIR, runCli } from '../../helpers/cli.ts';
import { waitFor } from '../../helpers/wait.ts';

async function k(kubeconfig: string, args: string[], input?: string): Promise<string> {
  const r = await kubectl(kubeconfig, args, { ...(input === undefined ? {} : { input }), timeoutMs: 90_000 });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

test(
  'two API servers on one etcd: each serves what the other wrote; the controllers act on both',
  { timeout: 300_000 },
  async (t) => {
    const dataDir = mkdtempSync(path.join('/dev/shm', 'peerpods-etcd-cp-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const first: TestCluster = await startTestCluster({ dataDir, etcd: {}, nodes: 1 });
    t.after(() => first.stop());
    const storage = first.internals.storage;
    assert.ok(storage instanceof EtcdStorage);
    const second: TestCluster = await startTestCluster({
      etcd: { endpoints: [...storage.endpoints] },
      controllers: false,
    });
    t.after(() => second.stop());

    // Created through the second, run by the first's controllers, scheduler and node.
    await k(second.kubeconfigPath, ['create', 'deployment', 'web', '--image=registry.k8s.io/pause:3.9']);
    await k(second.kubeconfigPath, ['rollout', 'status', 'deployment/web', '--timeout=120s']);
    const podsViaFirst = await k(first.kubeconfigPath, [
      'get',
      'pods',
      '-l',
      'app=web',
      '-o',
      'jsonpath={.items[*].status.phase}',
    ]);
    assert.equal(podsViaFirst, 'Running');
    // The second runs no controllers: nothing of its own was bootstrapped twice.
    assert.equal(
      (await k(second.kubeconfigPath, ['get', 'namespaces', '-o', 'name'])).split('\n').filter(Boolean).length,
      4,
    );

    // One object, the same resourceVersion through both.
    await k(first.kubeconfigPath, ['create', 'configmap', 'shared', '--from-literal=v=0']);
    const viaFirst = await call(first, 'GET', '/api/v1/namespaces/default/configmaps/shared');
    await waitFor(
      async () => (await call(second, 'GET', '/api/v1/namespaces/default/configmaps/shared')).code === 200,
      "the second server to serve the first one's write",
      30_000,
      50,
    );
    const viaSecond = await call(second, 'GET', '/api/v1/namespaces/default/configmaps/shared');
    const rv = (viaFirst.json.metadata as { resourceVersion: string }).resourceVersion;
    assert.equal((viaSecond.json.metadata as { resourceVersion: string }).resourceVersion, rv);

    // Both update from the same resourceVersion: the first to arrive wins, the other gets kube's 409.
    const put = (cp: TestCluster, v: string) =>
      call(cp, 'PUT', '/api/v1/namespaces/default/configmaps/shared', { ...viaFirst.json, data: { v } });
    assert.equal((await put(first, 'first')).code, 200);
    const stale = await put(second, 'second');
    assert.equal(stale.code, 409);
    assert.equal(stale.json.reason, 'Conflict');
    assert.match(
      String(stale.json.message),
      /the object has been modified; please apply your changes to the latest version/,
    );
    assert.equal(
      JSON.parse(await k(second.kubeconfigPath, ['get', 'configmap', 'shared', '-o', 'json'])).data.v,
      'first',
    );
  },
);

test(
  'cluster start --local-etcd: after a SIGKILL the next start has every object, and one etcd runs',
  { timeout: 300_000 },
  async (t) => {
    const dir = mkdtempSync(path.join(STATE_TMPDIR, 'peerpods-etcd-cli-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const kubeconfig = path.join(dir, 'kubeconfig');
    const args = [
      'cluster',
      'start',
      '--port',
      '0',
      '--kubeconfig',
      kubeconfig,
      '--data-dir',
      path.join(dir, 'data'),
      '--local-etcd',
    ];
    const pidFile = path.join(dir, 'data', 'etcd', 'etcd.pid');

    const killed = runCli(args);
    t.after(() => killed.child.kill('SIGKILL'));
    await killed.waitForLine(/listening on/, 120_000);
    await k(kubeconfig, ['create', 'configmap', 'survivor', '--from-literal=k=v']);
    const rv = Number(
      await k(kubeconfig, ['get', 'configmap', 'survivor', '-o', 'jsonpath={.metadata.resourceVersion}']),
    );
    const firstEtcd = Number(readFileSync(pidFile, 'utf8'));
    killed.child.kill('SIGKILL');
    await killed.exited;

    const next = runCli(args);
    t.after(async () => {
      next.child.kill('SIGTERM');
      await next.exited;
    });
    await next.waitForLine(/listening on/, 120_000);
    assert.equal(
      await k(kubeconfig, ['get', 'configmap', 'survivor', '-o', 'jsonpath={.metadata.resourceVersion} {.data.k}']),
      `${rv} v`,
    );
    await k(kubeconfig, ['create', 'configmap', 'later']);
    assert.ok(
      Number(await k(kubeconfig, ['get', 'configmap', 'later', '-o', 'jsonpath={.metadata.resourceVersion}'])) > rv,
    );
    // The killed run's etcd was stopped; the new run's is the only one on this directory.
    const secondEtcd = Number(readFileSync(pidFile, 'utf8'));
    assert.notEqual(secondEtcd, firstEtcd);
    assert.throws(() => process.kill(firstEtcd, 0));
  },
);

test(
  'cluster start refuses etcd flags that do not go together, before starting anything',
  { timeout: 120_000 },
  async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--local-etcd'], /--local-etcd keeps its data in --data-dir/],
      [
        ['--local-etcd', '--data-dir', '/var/tmp/x', '--etcd-servers', 'http://127.0.0.1:2379'],
        /leave out --etcd-servers/,
      ],
      [['--no-controllers', '--nodes', '1'], /--nodes needs the controllers/],
      [['--etcd-servers', 'localhost:2379'], /is not an etcd client URL/],
    ];
    for (const [flags, message] of cases) {
      const run = runCli(['cluster', 'start', '--port', '0', ...flags]);
      const { code } = await run.exited;
      assert.notEqual(code, 0, `${flags.join(' ')} should fail`);
      assert.match(run.output(), message);
    }
  },
);
