// DaemonSets run as with kube-controller-manager's daemonset controller
// (pkg/controller/daemon/daemon_controller.go, update.go, util/daemonset_util.go): one pod per
// eligible node, bound by the scheduler through a `metadata.name In [node]` node affinity, taints
// and tolerations, nodes joining and leaving, RollingUpdate within maxUnavailable, OnDelete,
// ControllerRevisions, and `kubectl rollout status|history|undo ds` with the pinned kubectl versions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import { apply, controllerOf, get, isReady, k, list, namespace, watchPods, type Obj } from './helpers.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

function dsManifest(
  name: string,
  ns: string,
  opts: { image?: string; podSpec?: JsonObject; spec?: JsonObject } = {},
): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: ns },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: opts.image ?? 'nginx:1.27' }], ...opts.podSpec },
      },
      ...opts.spec,
    },
  };
}

/** Live pods of the DaemonSet: not being deleted, not terminal. */
function podsOfDs(cp: TestCluster, ns: string, name: string): Obj[] {
  const ds = get(cp, 'ds', ns, name);
  return list(cp, 'pod', ns).filter(
    (p) =>
      ds &&
      controllerOf(p)?.uid === ds.metadata.uid &&
      !p.metadata.deletionTimestamp &&
      p.status.phase !== 'Failed' &&
      p.status.phase !== 'Succeeded',
  );
}

function imageOf(p: Obj): string {
  return String((p.spec.containers as Obj[])[0].image);
}

/** Waits until the status reflects the generation and every eligible node runs an available updated pod. */
async function dsSettled(cp: TestCluster, ns: string, name: string, desired: number): Promise<Obj> {
  return (await eventually(
    () => {
      const ds = get(cp, 'ds', ns, name);
      if (!ds) return undefined;
      const s = ds.status;
      const ok =
        s.observedGeneration === ds.metadata.generation &&
        s.desiredNumberScheduled === desired &&
        s.currentNumberScheduled === desired &&
        s.numberReady === desired &&
        (s.updatedNumberScheduled ?? 0) === desired &&
        (s.numberAvailable ?? 0) === desired &&
        s.numberMisscheduled === 0 &&
        podsOfDs(cp, ns, name).length === desired;
      return ok ? ds : undefined;
    },
    { timeoutMs: 30_000, what: `daemonset ${ns}/${name} settled on ${desired} nodes` },
  ))!;
}

function nodesOf(pods: Obj[]): string[] {
  return pods.map((p) => String(p.spec.nodeName)).sort();
}

describe('daemonset controller', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 3 });
  });
  after(() => cp.stop());

  test('one pod per node, bound by the scheduler; pod shape, status, events, kubectl get ds', async () => {
    await namespace(cp, 'basic');
    await apply(cp, dsManifest('agent', 'basic'));
    const ds = await dsSettled(cp, 'basic', 'agent', 3);
    const pods = podsOfDs(cp, 'basic', 'agent');
    assert.deepEqual(nodesOf(pods), ['node-1', 'node-2', 'node-3']);
    assert.equal(ds.metadata.annotations!['deprecated.daemonset.template.generation'], '1');
    const revisions = list(cp, 'revision', 'basic');
    assert.equal(revisions.length, 1);
    const hash = revisions[0].metadata.labels!['controller-revision-hash'];
    assert.equal(revisions[0].metadata.name, `agent-${hash}`);
    assert.equal(revisions[0].revision, 1);
    for (const p of pods) {
      assert.ok(p.metadata.name!.startsWith('agent-'));
      assert.equal(isReady(p), true);
      assert.deepEqual(p.metadata.labels, {
        app: 'agent',
        'controller-revision-hash': hash,
        'pod-template-generation': '1',
      });
      const ref = controllerOf(p)!;
      assert.deepEqual([ref.kind, ref.name, (ref as JsonObject).blockOwnerDeletion], ['DaemonSet', 'agent', true]);
      // CreatePodTemplate + ReplaceDaemonSetPodNodeNameNodeAffinity: the scheduler binds it.
      assert.deepEqual((p.spec.affinity as JsonObject).nodeAffinity, {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [p.spec.nodeName] }] }],
        },
      });
      // AddOrUpdateDaemonPodTolerations (no tolerationSeconds: the DefaultTolerationSeconds
      // admission plugin leaves pods that already tolerate not-ready/unreachable alone).
      assert.deepEqual(p.spec.tolerations, [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
      ]);
    }
    const events = list(cp, 'event', 'basic').filter((e) => (e.involvedObject as JsonObject).kind === 'DaemonSet');
    for (const p of pods) {
      const e = events.find((ev) => ev.message === `Created pod: ${p.metadata.name}`);
      assert.equal(e?.reason, 'SuccessfulCreate', JSON.stringify(events.map((ev) => ev.message)));
      assert.equal((e?.source as JsonObject).component, 'daemonset-controller');
    }
    const table = await k(cp, 'get', 'ds', 'agent', '-n', 'basic');
    assert.match(table, /^NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE\n/);
    assert.match(table, /\nagent\s+3\s+3\s+3\s+3\s+3\s+<none>\s+\S+\n$/);
  });

  test('a pod deleted by hand is made again on its node', async () => {
    await namespace(cp, 'recreate');
    await apply(cp, dsManifest('agent', 'recreate'));
    await dsSettled(cp, 'recreate', 'agent', 3);
    const victim = podsOfDs(cp, 'recreate', 'agent').find((p) => p.spec.nodeName === 'node-2')!;
    await k(cp, 'delete', 'pod', victim.metadata.name!, '-n', 'recreate', '--wait=false');
    const replacement = (await eventually(
      () =>
        podsOfDs(cp, 'recreate', 'agent').find(
          (p) => p.spec.nodeName === 'node-2' && p.metadata.uid !== victim.metadata.uid && isReady(p),
        ),
      { timeoutMs: 30_000, what: 'a new pod on node-2' },
    ))!;
    assert.notEqual(replacement.metadata.name, victim.metadata.name);
    await dsSettled(cp, 'recreate', 'agent', 3);
    const deleted = list(cp, 'event', 'recreate').find((e) => e.reason === 'SuccessfulDelete');
    assert.equal(deleted, undefined, 'the controller deleted nothing itself');
  });

  test('taints: NoSchedule keeps new pods away unless tolerated; untolerated NoExecute deletes', async () => {
    await namespace(cp, 'taints');
    await k(cp, 'taint', 'nodes', 'node-1', 'dedicated=infra:NoSchedule');
    try {
      await apply(cp, dsManifest('plain', 'taints'));
      await apply(
        cp,
        dsManifest('tolerant', 'taints', {
          podSpec: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoSchedule' }] },
        }),
      );
      await dsSettled(cp, 'taints', 'plain', 2);
      assert.deepEqual(nodesOf(podsOfDs(cp, 'taints', 'plain')), ['node-2', 'node-3']);
      await dsSettled(cp, 'taints', 'tolerant', 3);
      assert.deepEqual(nodesOf(podsOfDs(cp, 'taints', 'tolerant')), ['node-1', 'node-2', 'node-3']);

      // A NoExecute taint nothing tolerates: both lose their pod on node-3 (shouldContinueRunning false).
      await k(cp, 'taint', 'nodes', 'node-3', 'evict=now:NoExecute');
      try {
        await dsSettled(cp, 'taints', 'plain', 1);
        await dsSettled(cp, 'taints', 'tolerant', 2);
        assert.deepEqual(nodesOf(podsOfDs(cp, 'taints', 'plain')), ['node-2']);
        assert.deepEqual(nodesOf(podsOfDs(cp, 'taints', 'tolerant')), ['node-1', 'node-2']);
      } finally {
        await k(cp, 'taint', 'nodes', 'node-3', 'evict=now:NoExecute-');
      }
      await dsSettled(cp, 'taints', 'plain', 2);
      await dsSettled(cp, 'taints', 'tolerant', 3);
    } finally {
      await k(cp, 'taint', 'nodes', 'node-1', 'dedicated=infra:NoSchedule-');
    }
    await dsSettled(cp, 'taints', 'plain', 3);
  });

  test('a node joining gets a pod; a node leaving takes its pod along', async () => {
    await namespace(cp, 'churn');
    await apply(cp, dsManifest('agent', 'churn'));
    await dsSettled(cp, 'churn', 'agent', 3);
    const added = await cp.internals.nodes.add('node-extra');
    try {
      await dsSettled(cp, 'churn', 'agent', 4);
      assert.deepEqual(nodesOf(podsOfDs(cp, 'churn', 'agent')), ['node-1', 'node-2', 'node-3', 'node-extra']);
    } finally {
      await cp.internals.nodes.remove(added);
    }
    await dsSettled(cp, 'churn', 'agent', 3);
    await eventually(() => list(cp, 'pod', 'churn').every((p) => p.spec.nodeName !== 'node-extra'), {
      timeoutMs: 30_000,
      what: 'the pod of node-extra gone',
    });
  });

  test('RollingUpdate maxUnavailable 1: one node at a time; rollout status, history and undo', async () => {
    await namespace(cp, 'roll');
    await apply(cp, dsManifest('agent', 'roll'));
    const first = await dsSettled(cp, 'roll', 'agent', 3);
    assert.deepEqual(first.spec.updateStrategy, {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
    });
    // A node is unavailable when it has no Ready pod that is not being deleted.
    let worst = 0;
    const w = watchPods(cp, 'roll', (pods) => {
      const up = new Set<string>();
      for (const p of pods.values()) {
        if (!p.metadata.deletionTimestamp && isReady(p) && p.spec.nodeName) up.add(String(p.spec.nodeName));
      }
      worst = Math.max(worst, 3 - up.size);
    });
    try {
      await k(cp, 'set', 'image', 'ds/agent', 'app=nginx:1.28', '-n', 'roll');
      for (const version of ['1.27', '1.33']) {
        const r = await kubectl(cp.kubeconfigPath, ['rollout', 'status', 'ds/agent', '-n', 'roll', '--timeout=60s'], {
          version,
        });
        assert.equal(r.code, 0, `${version}: ${r.stderr}`);
        // kubectl's DaemonSetStatusViewer (pkg/polymorphichelpers/rollout_status.go).
        assert.match(r.stdout, /daemon set "agent" successfully rolled out\n$/, version);
      }
    } finally {
      w.stop();
    }
    assert.equal(worst, 1, 'exactly one node at a time was without an available pod');
    const rolled = await dsSettled(cp, 'roll', 'agent', 3);
    assert.equal(rolled.metadata.annotations!['deprecated.daemonset.template.generation'], '2');
    assert.deepEqual(
      podsOfDs(cp, 'roll', 'agent').map((p) => [imageOf(p), p.metadata.labels!['pod-template-generation']]),
      [
        ['nginx:1.28', '2'],
        ['nginx:1.28', '2'],
        ['nginx:1.28', '2'],
      ],
    );
    const revisions = list(cp, 'revision', 'roll').sort((a, b) => Number(a.revision) - Number(b.revision));
    assert.deepEqual(
      revisions.map((r) => r.revision),
      [1, 2],
    );
    for (const version of ['1.27', '1.33']) {
      const r = await kubectl(cp.kubeconfigPath, ['rollout', 'history', 'ds/agent', '-n', 'roll'], { version });
      assert.equal(r.code, 0, `${version}: ${r.stderr}`);
      assert.match(r.stdout, /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/, version);
    }
    // kubectl's DaemonSetRollbacker applies the previous revision's data as a strategic merge patch.
    const undo = await kubectl(cp.kubeconfigPath, ['rollout', 'undo', 'ds/agent', '-n', 'roll'], { version: '1.33' });
    assert.equal(undo.code, 0, undo.stderr);
    assert.match(undo.stdout, /daemonset.apps\/agent rolled back/);
    await eventually(
      () => {
        const pods = podsOfDs(cp, 'roll', 'agent');
        return pods.length === 3 && pods.every((p) => imageOf(p) === 'nginx:1.27' && isReady(p));
      },
      { timeoutMs: 30_000, what: 'pods back on nginx:1.27' },
    );
    await dsSettled(cp, 'roll', 'agent', 3);
    // constructHistory renumbers the matching revision instead of making a new one.
    const after = list(cp, 'revision', 'roll');
    assert.equal(after.length, 2);
    assert.equal(after.find((r) => r.metadata.name === revisions[0].metadata.name)?.revision, 3);
    for (const version of ['1.27', '1.33']) {
      const same = await kubectl(cp.kubeconfigPath, ['rollout', 'undo', 'ds/agent', '-n', 'roll', '--to-revision=3'], {
        version,
      });
      assert.equal(same.code, 0, same.stderr);
      assert.match(same.stdout, /skipped rollback \(current template already matches revision 3\)/, version);
    }
  });

  test('RollingUpdate maxSurge 1, maxUnavailable 0: every node keeps an available pod throughout', async () => {
    await namespace(cp, 'surge');
    const strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } };
    await apply(cp, dsManifest('agent', 'surge', { spec: { updateStrategy: strategy } }));
    await dsSettled(cp, 'surge', 'agent', 3);
    let worst = 0;
    let most = 0;
    const w = watchPods(cp, 'surge', (pods) => {
      const up = new Set<string>();
      let live = 0;
      for (const p of pods.values()) {
        if (p.metadata.deletionTimestamp) continue;
        live++;
        if (isReady(p) && p.spec.nodeName) up.add(String(p.spec.nodeName));
      }
      worst = Math.max(worst, 3 - up.size);
      most = Math.max(most, live);
    });
    try {
      await k(cp, 'set', 'image', 'ds/agent', 'app=nginx:1.28', '-n', 'surge');
      await k(cp, 'rollout', 'status', 'ds/agent', '-n', 'surge', '--timeout=60s');
    } finally {
      w.stop();
    }
    assert.equal(worst, 0, 'no node was without an available pod');
    assert.equal(most, 4, 'one surge pod at a time');
    await dsSettled(cp, 'surge', 'agent', 3);
    assert.deepEqual(podsOfDs(cp, 'surge', 'agent').map(imageOf), ['nginx:1.28', 'nginx:1.28', 'nginx:1.28']);
  });

  test('ControllerRevisions beyond revisionHistoryLimit are pruned, oldest first', async () => {
    await namespace(cp, 'prune');
    await apply(cp, dsManifest('agent', 'prune', { spec: { revisionHistoryLimit: 1 } }));
    await dsSettled(cp, 'prune', 'agent', 3);
    for (const image of ['nginx:1.28', 'nginx:1.29', 'nginx:1.30']) {
      await k(cp, 'set', 'image', 'ds/agent', `app=${image}`, '-n', 'prune');
      await k(cp, 'rollout', 'status', 'ds/agent', '-n', 'prune', '--timeout=60s');
    }
    await dsSettled(cp, 'prune', 'agent', 3);
    const revisions = (await eventually(
      () => {
        const r = list(cp, 'revision', 'prune');
        return r.length === 2 ? r : undefined;
      },
      { timeoutMs: 30_000, what: 'history pruned to the current revision and one more' },
    ))!;
    assert.deepEqual(revisions.map((r) => r.revision).sort(), [3, 4]);
  });

  test('OnDelete: nothing is replaced until a pod is deleted; rollout status refuses', async () => {
    await namespace(cp, 'ondelete');
    await apply(cp, dsManifest('agent', 'ondelete', { spec: { updateStrategy: { type: 'OnDelete' } } }));
    await dsSettled(cp, 'ondelete', 'agent', 3);
    const before = podsOfDs(cp, 'ondelete', 'agent');
    await k(cp, 'set', 'image', 'ds/agent', 'app=nginx:1.28', '-n', 'ondelete');
    const ds = (await eventually(
      () => {
        const d = get(cp, 'ds', 'ondelete', 'agent');
        return d && d.status.observedGeneration === d.metadata.generation ? d : undefined;
      },
      { what: 'new generation observed' },
    ))!;
    assert.equal(ds.status.updatedNumberScheduled, undefined);
    assert.equal(ds.status.numberAvailable, 3);
    assert.deepEqual(
      podsOfDs(cp, 'ondelete', 'agent')
        .map((p) => p.metadata.uid)
        .sort(),
      before.map((p) => p.metadata.uid).sort(),
    );
    const r = await kubectl(cp.kubeconfigPath, ['rollout', 'status', 'ds/agent', '-n', 'ondelete']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /rollout status is only available for RollingUpdate strategy type/);

    const victim = before.find((p) => p.spec.nodeName === 'node-1')!;
    await k(cp, 'delete', 'pod', victim.metadata.name!, '-n', 'ondelete');
    await eventually(
      () => {
        const d = get(cp, 'ds', 'ondelete', 'agent');
        const pods = podsOfDs(cp, 'ondelete', 'agent');
        const fresh = pods.find((p) => p.spec.nodeName === 'node-1');
        return d?.status.updatedNumberScheduled === 1 && fresh && imageOf(fresh) === 'nginx:1.28' && isReady(fresh);
      },
      { timeoutMs: 30_000, what: 'node-1 runs the new template' },
    );
    const others = podsOfDs(cp, 'ondelete', 'agent').filter((p) => p.spec.nodeName !== 'node-1');
    assert.deepEqual(
      others.map((p) => imageOf(p)),
      ['nginx:1.27', 'nginx:1.27'],
    );
  });
});
