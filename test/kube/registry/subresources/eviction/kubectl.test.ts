// kubectl cordon / uncordon / drain with the real kubectl binaries (both pinned versions): drain
// finds pods/eviction in discovery, evicts through policy/v1, waits for the simulated kubelets
// to finish the deletions, and retries while a PodDisruptionBudget blocks it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../../helpers/control-plane.ts';
import { kubectl, kubectlStream } from '../../../../helpers/kubectl.ts';
import type { JsonObject } from '../../../../../src/apimachinery/meta/index.ts';
import { createBudget, createNamespace, ctx, def, findPod, runningPods } from './helpers.ts';

const VERSIONS = ['1.27', '1.33'];

function node(cp: TestCluster, name: string): JsonObject {
  return cp.internals.store.get(def(cp, '', 'nodes'), undefined, name);
}

function unschedulable(cp: TestCluster, name: string): boolean {
  return (node(cp, name).spec as JsonObject).unschedulable === true;
}

function hasUnschedulableTaint(cp: TestCluster, name: string): boolean {
  const taints = ((node(cp, name).spec as JsonObject).taints ?? []) as JsonObject[];
  return taints.some((t) => t.key === 'node.kubernetes.io/unschedulable' && t.effect === 'NoSchedule');
}

/** Names (`ns/name`) of the pods bound to `nodeName`. */
function podsOn(cp: TestCluster, nodeName: string): string[] {
  const prefix = '/core/pods/';
  return cp.internals.storage
    .list(prefix)
    .map((s) => JSON.parse(s.json) as JsonObject)
    .filter((p) => (p.spec as JsonObject).nodeName === nodeName)
    .map((p) => `${String((p.metadata as JsonObject).namespace)}/${String((p.metadata as JsonObject).name)}`)
    .sort();
}

/**
 * Creates the owner of the pods a drain meets. A StatefulSet runs its own two pods (`<name>-0`,
 * `<name>-1`, created in parallel and kept on `nodeName`), a DaemonSet its pod on `nodeName`, as
 * they do on kube.
 */
async function createOwner(cp: TestCluster, ns: string, resource: string, kind: string, name: string, nodeName = '') {
  const labels = { owner: name };
  const sts = kind === 'StatefulSet';
  const obj = await cp.internals.store.create(
    def(cp, 'apps', resource),
    ns,
    {
      metadata: { name },
      spec: {
        selector: { matchLabels: labels },
        ...(sts ? { serviceName: name, replicas: 2, podManagementPolicy: 'Parallel' } : {}),
        template: {
          metadata: { labels },
          spec: {
            containers: [{ name: 'c', image: 'nginx' }],
            ...(nodeName ? { nodeSelector: { 'kubernetes.io/hostname': nodeName } } : {}),
          },
        },
      },
    },
    ctx,
  );
  const meta = obj.metadata as JsonObject;
  return [{ apiVersion: 'apps/v1', kind, name, uid: meta.uid, controller: true, blockOwnerDeletion: true }];
}

/** Waits until the controller-made pods `names` run Ready on `nodeName`. */
async function readyPods(cp: TestCluster, ns: string, names: string[], nodeName: string): Promise<void> {
  await eventually(
    () =>
      names.every((n) => {
        const pod = findPod(cp, ns, n);
        const conditions = ((pod?.status as JsonObject | undefined)?.conditions ?? []) as JsonObject[];
        return (
          (pod?.spec as JsonObject | undefined)?.nodeName === nodeName &&
          conditions.some((c) => c.type === 'Ready' && c.status === 'True')
        );
      }),
    { what: `pods ${names.join(', ')} Ready on ${nodeName}`, timeoutMs: 15_000 },
  );
}

for (const version of VERSIONS) {
  describe(`kubectl ${version}`, () => {
    let cp: TestCluster;
    before(async () => {
      cp = await startTestCluster({ nodes: 2 });
    });
    after(() => cp.stop());
    const k = (args: string[], timeoutMs = 90_000) => kubectl(cp.kubeconfigPath, args, { version, timeoutMs });

    test('cordon and uncordon set and clear spec.unschedulable', async () => {
      const cordon = await k(['cordon', 'node-2']);
      assert.equal(cordon.code, 0, cordon.stderr);
      assert.match(cordon.stdout, /node\/node-2 cordoned/);
      assert.equal(unschedulable(cp, 'node-2'), true);
      await eventually(() => hasUnschedulableTaint(cp, 'node-2'), { what: 'unschedulable taint' });
      const get = await k(['get', 'node', 'node-2']);
      assert.match(get.stdout, /Ready,SchedulingDisabled/);
      const again = await k(['cordon', 'node-2']);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /node\/node-2 already cordoned/);

      const uncordon = await k(['uncordon', 'node-2']);
      assert.equal(uncordon.code, 0, uncordon.stderr);
      assert.match(uncordon.stdout, /node\/node-2 uncordoned/);
      assert.equal(unschedulable(cp, 'node-2'), false);
      await eventually(() => !hasUnschedulableTaint(cp, 'node-2'), { what: 'unschedulable taint removed' });
    });

    test('drain --dry-run=server changes nothing', async () => {
      await createNamespace(cp, 'dry');
      await runningPods(cp, 'dry', ['p'], { nodeName: 'node-2' });
      const r = await k(['drain', 'node-2', '--force', '--ignore-daemonsets', '--dry-run=server', '--timeout=30s']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /evicting pod dry\/p \(server dry run\)/);
      assert.equal(unschedulable(cp, 'node-2'), false);
      const pod = findPod(cp, 'dry', 'p');
      assert.ok(pod && !(pod.metadata as JsonObject).deletionTimestamp, 'pod touched by a dry run');
    });

    test('drain node-1 evicts its pods, ignores DaemonSet pods and leaves the node cordoned', async () => {
      const ns = 'drain';
      await createNamespace(cp, ns);
      await createOwner(cp, ns, 'statefulsets', 'StatefulSet', 'web', 'node-1');
      const [ds] = await createOwner(cp, ns, 'daemonsets', 'DaemonSet', 'agent', 'node-1');
      await readyPods(cp, ns, ['web-0', 'web-1'], 'node-1');
      await runningPods(cp, ns, ['bare'], { nodeName: 'node-1' });
      await runningPods(cp, ns, ['scratch'], {
        nodeName: 'node-1',
        spec: {
          containers: [{ name: 'c', image: 'nginx', volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }] }],
          volumes: [{ name: 'tmp', emptyDir: {} }],
        },
      });
      const agent = (await eventually(
        () =>
          cp.internals.storage
            .list(`/core/pods/${ns}/`)
            .map((s) => JSON.parse(s.json) as JsonObject)
            .find((p) => {
              const meta = p.metadata as JsonObject;
              const owners = (meta.ownerReferences ?? []) as JsonObject[];
              const ready = (((p.status as JsonObject).conditions ?? []) as JsonObject[]).some(
                (c) => c.type === 'Ready' && c.status === 'True',
              );
              return owners.some((o) => o.uid === ds.uid) && (p.spec as JsonObject).nodeName === 'node-1' && ready;
            }),
        { what: 'the DaemonSet pod Ready on node-1' },
      ))!;
      const agentName = String((agent.metadata as JsonObject).name);
      await runningPods(cp, ns, ['elsewhere'], { nodeName: 'node-2' });

      const r = await k([
        'drain',
        'node-1',
        '--ignore-daemonsets',
        '--delete-emptydir-data',
        '--force',
        '--timeout=60s',
      ]);
      assert.equal(r.code, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
      assert.match(r.stdout, /node\/node-1 cordoned/);
      for (const name of ['web-0', 'web-1', 'bare', 'scratch']) {
        assert.match(r.stdout, new RegExp(`evicting pod ${ns}/${name}\\b`));
        assert.match(r.stdout, new RegExp(`pod/${name} evicted`));
      }
      assert.doesNotMatch(r.stdout, new RegExp(agentName));
      assert.match(r.stdout, /node\/node-1 drained/);
      assert.match(r.stderr, new RegExp(`ignoring DaemonSet-managed Pods: drain/${agentName}`));
      assert.match(r.stderr, /deleting Pods that declare no controller: drain\/bare, drain\/scratch/);

      assert.equal(unschedulable(cp, 'node-1'), true);
      assert.deepEqual(podsOn(cp, 'node-1'), [`drain/${agentName}`]);
      assert.ok(findPod(cp, ns, 'elsewhere'), 'a pod of another node was evicted');
      // A new pod now lands on the other node.
      const run = await k(['run', 'after-drain', '-n', ns, '--image=nginx', '--restart=Never']);
      assert.equal(run.code, 0, run.stderr);
      await eventually(() => (findPod(cp, ns, 'after-drain')?.spec as JsonObject | undefined)?.nodeName === 'node-2', {
        what: 'after-drain scheduled to node-2',
      });
    });

    test('drain blocked by a PodDisruptionBudget retries and fails at --timeout', async () => {
      const ns = 'guarded';
      await createNamespace(cp, ns);
      await createOwner(cp, ns, 'statefulsets', 'StatefulSet', 'db', 'node-2');
      await readyPods(cp, ns, ['db-0', 'db-1'], 'node-2');
      await createBudget(cp, ns, 'db', { minAvailable: 2, selector: { matchLabels: { owner: 'db' } } });

      const r = await k([
        'drain',
        'node-2',
        '--ignore-daemonsets',
        '--delete-emptydir-data',
        '--force',
        '--timeout=7s',
      ]);
      assert.notEqual(r.code, 0, `drain succeeded:\n${r.stdout}`);
      assert.match(
        r.stderr,
        /error when evicting pods\/"db-0" -n "guarded" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./,
      );
      assert.match(r.stderr, /global timeout reached/);
      assert.equal(unschedulable(cp, 'node-2'), true);
      for (const name of ['db-0', 'db-1']) {
        const pod = findPod(cp, ns, name);
        assert.ok(pod && !(pod.metadata as JsonObject).deletionTimestamp, `${name} evicted despite its budget`);
      }
    });

    test('a blocked drain completes once the budget is removed', async () => {
      const ns = 'guarded';
      const drain = kubectlStream(
        cp.kubeconfigPath,
        ['drain', 'node-2', '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=60s'],
        version,
      );
      const exited = new Promise<number | null>((resolve) => drain.child.on('exit', (code) => resolve(code)));
      try {
        await eventually(() => /will retry after/.test(drain.output()), {
          what: `drain retrying on 429; drain said:\n${drain.output()}`,
          timeoutMs: 20_000,
        });
        const del = await k(['delete', 'pdb', 'db', '-n', ns]);
        assert.equal(del.code, 0, del.stderr);
        const code = await Promise.race([
          exited,
          new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 45_000).unref()),
        ]);
        assert.equal(code, 0, drain.output());
      } finally {
        drain.stop();
      }
      assert.match(drain.output(), /pod\/db-0 evicted/);
      assert.match(drain.output(), /node\/node-2 drained/);
      // The StatefulSet makes its pods again; pinned to the cordoned node, they stay unbound.
      assert.deepEqual(podsOn(cp, 'node-2'), []);
    });
  });
}
