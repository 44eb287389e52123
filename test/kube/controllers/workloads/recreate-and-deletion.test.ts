// The Recreate strategy never runs old and new pods at once (checked on every pod change), and
// deleting a Deployment cascades through the garbage collector: Background, Foreground (pods,
// then ReplicaSets, then the Deployment) and Orphan (ReplicaSets and pods stay and keep running).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import {
  apply,
  controllerOf,
  deploymentManifest,
  get,
  isLive,
  k,
  list,
  namespace,
  podsOf,
  replicaSetsOf,
  rolloutStatus,
  settled,
  watchPods,
  type Obj,
} from './helpers.ts';

describe('Recreate strategy', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 2 });
  });
  after(() => cp.stop());

  test('old pods have stopped before any new pod exists', async () => {
    await namespace(cp, 'recreate');
    await apply(cp, deploymentManifest('web', 'recreate', { replicas: 3, spec: { strategy: { type: 'Recreate' } } }));
    await rolloutStatus(cp, 'recreate', 'web');
    const [oldRS] = replicaSetsOf(cp, 'recreate', 'web');
    const oldHash = oldRS.metadata.labels!['pod-template-hash'];

    const overlaps: string[] = [];
    let sawOldTerminating = false;
    let newSeen = 0;
    const watcher = watchPods(cp, 'recreate', (pods, changed) => {
      const all = [...pods.values()];
      // Running as kube's oldPodsRunning sees it: any old pod not in a terminal phase, deleted or not.
      const oldRunning = all.filter(
        (p) =>
          p.metadata.labels?.['pod-template-hash'] === oldHash &&
          p.status.phase !== 'Succeeded' &&
          p.status.phase !== 'Failed',
      );
      const fresh = all.filter((p) => p.metadata.labels?.['pod-template-hash'] !== oldHash);
      if (oldRunning.some((p) => p.metadata.deletionTimestamp)) sawOldTerminating = true;
      newSeen = Math.max(newSeen, fresh.length);
      if (oldRunning.length > 0 && fresh.length > 0) overlaps.push(`${changed}: ${oldRunning.length} old running`);
    });
    try {
      await k(cp, 'set', 'image', 'deployment/web', 'app=nginx:1.28', '-n', 'recreate');
      assert.match(await rolloutStatus(cp, 'recreate', 'web'), /successfully rolled out/);
      await settled(cp, 'recreate', 'web');
    } finally {
      watcher.stop();
    }
    assert.deepEqual(overlaps, [], 'no old pod running while a new one exists');
    assert.ok(sawOldTerminating, 'old pods went through a graceful termination');
    assert.equal(newSeen, 3);
    const rss = replicaSetsOf(cp, 'recreate', 'web');
    assert.equal(rss.length, 2);
    assert.equal(rss.find((rs) => rs.metadata.uid === oldRS.metadata.uid)?.spec.replicas, 0);
    const fresh = rss.find((rs) => rs.metadata.uid !== oldRS.metadata.uid)!;
    assert.equal(fresh.spec.replicas, 3);
    assert.equal(fresh.metadata.annotations!['deployment.kubernetes.io/max-replicas'], '3', 'no surge');
    assert.equal(podsOf(cp, fresh).filter(isLive).length, 3);
  });
});

describe('deleting a Deployment', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 2 });
    await namespace(cp, 'del');
  });
  after(() => cp.stop());

  async function running(name: string): Promise<{ rs: Obj; pods: Obj[] }> {
    await apply(cp, deploymentManifest(name, 'del', { replicas: 2 }));
    await rolloutStatus(cp, 'del', name);
    const [rs] = replicaSetsOf(cp, 'del', name);
    return { rs, pods: podsOf(cp, rs) };
  }

  const gone = (kind: 'rs' | 'pod' | 'deployment', name: string) => !get(cp, kind, 'del', name);

  test('Background (the default): ReplicaSet and pods are collected', async () => {
    const { rs, pods } = await running('bg');
    await k(cp, 'delete', 'deployment', 'bg', '-n', 'del', '--wait=false');
    await eventually(() => gone('rs', rs.metadata.name!), { what: 'replica set collected' });
    await eventually(() => pods.every((p) => gone('pod', p.metadata.name!)), { what: 'pods collected' });
  });

  test('Foreground: pods go, then the ReplicaSet, then the Deployment', async () => {
    const { rs, pods } = await running('fg');
    const order: string[] = [];
    const watcher = cp.internals.storage.watch('/', cp.internals.storage.currentRevision(), (c) => {
      if (c.type === 'DELETED') order.push(c.key);
    });
    try {
      await k(cp, 'delete', 'deployment', 'fg', '-n', 'del', '--cascade=foreground', '--timeout=60s');
      await eventually(() => gone('deployment', 'fg'), { what: 'deployment deleted' });
    } finally {
      watcher.stop();
    }
    const at = (key: string) => order.indexOf(key);
    const rsAt = at(`/apps/replicasets/del/${rs.metadata.name}`);
    const dAt = at('/apps/deployments/del/fg');
    assert.ok(rsAt >= 0 && dAt > rsAt, `replica set before deployment: ${order.join(', ')}`);
    for (const p of pods) {
      const podAt = at(`/core/pods/del/${p.metadata.name}`);
      assert.ok(podAt >= 0 && podAt < rsAt, `pod ${p.metadata.name} before its replica set`);
    }
    assert.equal(list(cp, 'pod', 'del').filter((p) => p.metadata.name!.startsWith('fg-')).length, 0);
  });

  test('Orphan: ReplicaSet and pods stay, the ReplicaSet still replaces pods', async () => {
    const { rs, pods } = await running('orphan');
    await k(cp, 'delete', 'deployment', 'orphan', '-n', 'del', '--cascade=orphan');
    await eventually(() => gone('deployment', 'orphan'), { what: 'deployment deleted' });
    const left = get(cp, 'rs', 'del', rs.metadata.name!)!;
    assert.equal(left.metadata.ownerReferences, undefined);
    assert.equal(left.spec.replicas, 2);
    for (const p of pods) assert.equal(controllerOf(get(cp, 'pod', 'del', p.metadata.name!)!)?.uid, rs.metadata.uid);

    await k(cp, 'delete', 'pod', pods[0].metadata.name!, '-n', 'del', '--wait=false');
    await eventually(
      () => {
        const live = podsOf(cp, left).filter(isLive);
        return live.length === 2 && !live.some((p) => p.metadata.name === pods[0].metadata.name);
      },
      { what: 'orphaned replica set replaced the pod' },
    );
  });
});
