// `peerpods cluster start` + `peerpods deploy` + a PeerPodConfig, as a user runs them: every
// operator runs as a process pod of its Deployment, the adaptors as pods of the DaemonSet the
// PeerPodConfig creates (one per node, a node added later included), the webhook pods serve the
// webhook through their Service's Endpoints, and a peer pod on the added node gets a real VM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { kubectl } from '../helpers/kubectl.ts';
import { waitFor } from '../helpers/wait.ts';
import { processesMentioning, runCli } from '../helpers/cli.ts';

const NS = 'peerpods-system';

async function ok(kc: string, args: string[], input?: string): Promise<string> {
  const r = await kubectl(kc, args, { ...(input !== undefined ? { input } : {}), timeoutMs: 120_000 });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

test('cluster start + deploy + PeerPodConfig: operators, webhook and adaptors run as pods; a peer pod on a node added later gets its VM', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'peerpods-deploy-'));
  const kc = join(dir, 'kubeconfig');
  const cluster = runCli([
    'cluster',
    'start',
    '--port',
    '0',
    '--nodes',
    '1',
    '--kubeconfig',
    kc,
    '--state-dir',
    join(dir, 'cluster'),
  ]);
  t.after(async () => {
    cluster.child.kill('SIGKILL');
    for (const pid of processesMentioning(dir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });
  await cluster.waitForLine(/kubeconfig written/, 60_000);

  const deploy = runCli(['deploy', '--kubeconfig', kc]);
  assert.equal((await deploy.exited).code, 0, deploy.output());
  await ok(kc, ['wait', '-n', NS, '--for=condition=Available', 'deployment', '--all', '--timeout=90s']);
  // The operator's own JSON log lines, through the kubelet's log endpoint.
  const logs = await ok(kc, ['logs', '-n', NS, 'deploy/peerpod-controller']);
  assert.match(logs, /^\{.*"msg"/m, logs);

  const settings = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'peer-pods-cm', namespace: NS },
    data: {
      CLOUD_PROVIDER: 'qemu',
      QEMU_STATE_DIR: join(dir, 'qemu'),
      QEMU_DEFAULT_VCPUS: '1',
      QEMU_DEFAULT_MEMORY: '128',
    },
  };
  const config = {
    apiVersion: 'confidentialcontainers.org/v1alpha1',
    kind: 'PeerPodConfig',
    metadata: { name: 'peerpodconfig', namespace: NS },
    spec: { limit: '2' },
  };
  await ok(kc, ['apply', '-f', '-'], `${stringify(settings)}---\n${stringify(config)}`);
  const added = runCli(['cluster', 'node', 'add', 'node-2', '--kubeconfig', kc]);
  assert.equal((await added.exited).code, 0, added.output());

  const ds = 'peerpodconfig-ctrl-caa-daemon';
  await waitFor(
    async () => {
      const r = await kubectl(kc, ['get', 'ds', '-n', NS, ds, '-o', 'jsonpath={.status.numberReady}']);
      return r.stdout === '2';
    },
    'an adaptor pod Ready on each of the 2 nodes',
    120_000,
    200,
  );
  await ok(kc, ['rollout', 'status', '-n', NS, 'deployment/peer-pods-webhook', '--timeout=90s']);

  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'peer', namespace: 'default' },
    spec: {
      runtimeClassName: 'kata-remote',
      nodeSelector: { 'kubernetes.io/hostname': 'node-2' },
      containers: [{ name: 'app', image: 'nginx' }],
    },
  };
  await ok(kc, ['apply', '-f', '-'], stringify(pod));
  // The webhook pods mutated it: the VM resource replaced the requests.
  const resources = await ok(kc, ['get', 'pod', 'peer', '-o', 'jsonpath={.spec.containers[0].resources}']);
  assert.match(resources, /kata\.peerpods\.io\/vm/, resources);
  const ready = await kubectl(kc, ['wait', '--for=condition=Ready', 'pod/peer', '--timeout=120s'], {
    timeoutMs: 150_000,
  });
  if (ready.code !== 0) {
    // Say why: the pod's events and every pod of the system namespace.
    const describe = await kubectl(kc, ['describe', 'pod', 'peer']);
    const pods = await kubectl(kc, ['get', 'pods', '-A', '-o', 'wide']);
    assert.fail(`peer pod not Ready: ${ready.stderr}\n${describe.stdout}\n${pods.stdout}`);
  }
  await waitFor(() => processesMentioning(join(dir, 'qemu')).some((pid) => isQemu(pid)), 'the VM process', 30_000, 200);
  const peerpods = await ok(kc, ['get', 'peerpods', '-o', 'jsonpath={.items[*].metadata.ownerReferences[0].name}']);
  assert.match(peerpods, /\bpeer\b/);

  await ok(kc, ['delete', 'pod', 'peer', '--timeout=90s']);
  await waitFor(
    () => !processesMentioning(join(dir, 'qemu')).some((pid) => isQemu(pid)),
    'the VM process gone',
    30_000,
    200,
  );

  cluster.child.kill('SIGTERM');
  const exit = await cluster.exited;
  assert.equal(exit.code, 0, cluster.output());
  assert.deepEqual(processesMentioning(dir), [], 'no process of the cluster is left');
});

function isQemu(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('qemu-system');
  } catch {
    return false;
  }
}
