// Deployments run as with kube-controller-manager: kubectl create/rollout status/scale/set image/
// rollout undo/pause/resume, ReplicaSets named by pod-template-hash with revisions and replica
// annotations, rolling updates within maxSurge/maxUnavailable, revision history cleanup, status
// conditions (including the progress deadline) and adoption after an orphaning delete.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import {
  apply,
  condition,
  controllerOf,
  deploymentManifest,
  get,
  isLive,
  isReady,
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

describe('deployment controller', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 2 });
  });
  after(() => cp.stop());

  test('kubectl create deployment: one ReplicaSet by template hash, pods Running, status and conditions', async () => {
    await namespace(cp, 'create');
    await k(cp, 'create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3', '-n', 'create');
    assert.match(await rolloutStatus(cp, 'create', 'web'), /deployment "web" successfully rolled out/);

    const rsNames = (await k(cp, 'get', 'rs', '-n', 'create', '-o', 'name')).trim().split('\n');
    assert.equal(rsNames.length, 1);
    const [rs] = replicaSetsOf(cp, 'create', 'web');
    const hash = rs.metadata.labels!['pod-template-hash'];
    assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    assert.equal(rs.metadata.name, `web-${hash}`);
    assert.deepEqual(rsNames, [`replicaset.apps/web-${hash}`]);
    assert.deepEqual((rs.spec.selector as Obj).matchLabels, { app: 'web', 'pod-template-hash': hash });
    assert.deepEqual(((rs.spec.template as Obj).metadata as Obj).labels, { app: 'web', 'pod-template-hash': hash });
    assert.deepEqual(rs.metadata.annotations, {
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
      'deployment.kubernetes.io/revision': '1',
    });
    const ref = rs.metadata.ownerReferences?.[0];
    assert.equal(ref?.kind, 'Deployment');
    assert.equal(ref?.controller, true);
    assert.equal(ref?.blockOwnerDeletion, true);
    assert.deepEqual(rs.status, {
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 1,
    });

    const pods = podsOf(cp, rs);
    assert.equal(pods.length, 3);
    for (const p of pods) {
      assert.ok(p.metadata.name!.startsWith(`web-${hash}-`), p.metadata.name);
      assert.equal(p.metadata.labels!['pod-template-hash'], hash);
      assert.equal(p.status.phase, 'Running');
    }

    const d = get(cp, 'deployment', 'create', 'web')!;
    assert.equal(d.metadata.annotations!['deployment.kubernetes.io/revision'], '1');
    const { conditions, ...counts } = d.status;
    assert.deepEqual(counts, {
      observedGeneration: 1,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
    });
    const types = (conditions as Obj[]).map((c) => [c.type, c.status, c.reason, c.message]);
    assert.deepEqual(types, [
      ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
      ['Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "web-${hash}" has successfully progressed.`],
    ]);
    const table = await k(cp, 'get', 'deployment', 'web', '-n', 'create');
    assert.match(table, /web\s+3\/3\s+3\s+3\s/);
    const events = await k(cp, 'get', 'events', '-n', 'create', '--field-selector', 'involvedObject.kind=Deployment');
    assert.match(
      events,
      new RegExp(`ScalingReplicaSet\\s+deployment/web\\s+Scaled up replica set web-${hash} from 0 to 3`),
    );
  });

  test('kubectl scale and the scale subresource resize the ReplicaSet', async () => {
    await namespace(cp, 'scale');
    await k(cp, 'create', 'deployment', 'web', '--image=nginx', '--replicas=2', '-n', 'scale');
    await rolloutStatus(cp, 'scale', 'web');
    await k(cp, 'scale', 'deployment/web', '--replicas=5', '-n', 'scale');
    await settled(cp, 'scale', 'web');
    let [rs] = replicaSetsOf(cp, 'scale', 'web');
    assert.equal(rs.spec.replicas, 5);
    assert.equal(podsOf(cp, rs).filter(isLive).length, 5);
    assert.equal(rs.metadata.annotations!['deployment.kubernetes.io/desired-replicas'], '5');

    const r = await kubectl(cp.kubeconfigPath, [
      'patch',
      'deployment',
      'web',
      '-n',
      'scale',
      '--subresource=scale',
      '--type=merge',
      '-p',
      '{"spec":{"replicas":1}}',
    ]);
    assert.equal(r.code, 0, r.stderr);
    await settled(cp, 'scale', 'web');
    [rs] = replicaSetsOf(cp, 'scale', 'web');
    assert.equal(rs.spec.replicas, 1);
    await eventually(() => podsOf(cp, rs).length === 1, { what: 'scaled-down pods gone' });
    assert.equal(replicaSetsOf(cp, 'scale', 'web').length, 1, 'scaling makes no new ReplicaSet');
  });

  test('kubectl set image rolls within maxSurge/maxUnavailable; the old ReplicaSet ends at 0', async () => {
    await namespace(cp, 'roll');
    await apply(
      cp,
      deploymentManifest('web', 'roll', {
        replicas: 4,
        spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
      }),
    );
    await rolloutStatus(cp, 'roll', 'web');
    const [oldRS] = replicaSetsOf(cp, 'roll', 'web');

    let maxLive = 0;
    let minReady = Infinity;
    const watcher = watchPods(cp, 'roll', (pods) => {
      const live = [...pods.values()].filter(isLive);
      maxLive = Math.max(maxLive, live.length);
      minReady = Math.min(minReady, live.filter(isReady).length);
    });
    try {
      await k(cp, 'set', 'image', 'deployment/web', 'app=nginx:1.28', '-n', 'roll');
      assert.match(await rolloutStatus(cp, 'roll', 'web'), /successfully rolled out/);
      await settled(cp, 'roll', 'web');
    } finally {
      watcher.stop();
    }
    assert.ok(maxLive <= 5, `at most replicas + maxSurge pods at once, saw ${maxLive}`);
    assert.ok(maxLive === 5, `the rollout surged, saw at most ${maxLive}`);
    assert.ok(minReady >= 4, `never fewer than replicas - maxUnavailable ready pods, saw ${minReady}`);

    const rss = replicaSetsOf(cp, 'roll', 'web');
    assert.equal(rss.length, 2);
    const old = rss.find((rs) => rs.metadata.uid === oldRS.metadata.uid)!;
    const fresh = rss.find((rs) => rs.metadata.uid !== oldRS.metadata.uid)!;
    assert.equal(old.spec.replicas, 0);
    await eventually(() => podsOf(cp, old).length === 0, { what: 'old pods gone' });
    assert.equal(fresh.spec.replicas, 4);
    assert.equal(fresh.metadata.annotations!['deployment.kubernetes.io/revision'], '2');
    assert.equal(old.metadata.annotations!['deployment.kubernetes.io/revision'], '1');
    const images = podsOf(cp, fresh).map((p) => ((p.spec.containers as Obj[])[0] as Obj).image);
    assert.deepEqual(images, ['nginx:1.28', 'nginx:1.28', 'nginx:1.28', 'nginx:1.28']);
    const d = get(cp, 'deployment', 'roll', 'web')!;
    assert.equal(d.metadata.annotations!['deployment.kubernetes.io/revision'], '2');
    assert.equal(condition(d, 'Progressing')?.reason, 'NewReplicaSetAvailable');

    const table = await k(cp, 'get', 'rs', '-n', 'roll', '--no-headers');
    assert.match(table, new RegExp(`${old.metadata.name}\\s+0\\s+0\\s+0`));
    assert.match(table, new RegExp(`${fresh.metadata.name}\\s+4\\s+4\\s+4`));

    // Undo: the first ReplicaSet comes back as revision 3.
    await k(cp, 'rollout', 'undo', 'deployment/web', '-n', 'roll');
    await rolloutStatus(cp, 'roll', 'web');
    await settled(cp, 'roll', 'web');
    const back = get(cp, 'rs', 'roll', old.metadata.name!)!;
    assert.equal(back.spec.replicas, 4);
    assert.equal(back.metadata.annotations!['deployment.kubernetes.io/revision'], '3');
    assert.equal(back.metadata.annotations!['deployment.kubernetes.io/revision-history'], '1');
    assert.equal(get(cp, 'rs', 'roll', fresh.metadata.name!)!.spec.replicas, 0);
    assert.match(await k(cp, 'rollout', 'history', 'deployment/web', '-n', 'roll'), /\n2\s.*\n3\s/s);
  });

  test('paused deployments do not roll until resumed', async () => {
    await namespace(cp, 'pause');
    await k(cp, 'create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2', '-n', 'pause');
    await rolloutStatus(cp, 'pause', 'web');
    await k(cp, 'rollout', 'pause', 'deployment/web', '-n', 'pause');
    await k(cp, 'set', 'image', 'deployment/web', 'nginx=nginx:1.28', '-n', 'pause');
    const paused = await eventually(
      () => {
        const d = get(cp, 'deployment', 'pause', 'web')!;
        return d.status.observedGeneration === d.metadata.generation &&
          condition(d, 'Progressing')?.reason === 'DeploymentPaused'
          ? d
          : undefined;
      },
      { what: 'paused condition' },
    );
    assert.equal(condition(paused, 'Progressing')?.status, 'Unknown');
    assert.equal(condition(paused, 'Progressing')?.message, 'Deployment is paused');
    assert.equal(replicaSetsOf(cp, 'pause', 'web').length, 1, 'no new ReplicaSet while paused');
    // Scaling still works while paused.
    await k(cp, 'scale', 'deployment/web', '--replicas=3', '-n', 'pause');
    await eventually(() => replicaSetsOf(cp, 'pause', 'web')[0]?.spec.replicas === 3, { what: 'paused scale' });
    assert.equal(replicaSetsOf(cp, 'pause', 'web').length, 1);

    await k(cp, 'rollout', 'resume', 'deployment/web', '-n', 'pause');
    await rolloutStatus(cp, 'pause', 'web');
    const d = await settled(cp, 'pause', 'web');
    assert.equal(d.status.updatedReplicas, 3);
    const rss = replicaSetsOf(cp, 'pause', 'web');
    assert.equal(rss.length, 2);
    assert.deepEqual(rss.map((rs) => rs.spec.replicas).sort(), [0, 3]);
  });

  test('revisionHistoryLimit removes the oldest ReplicaSets scaled to 0', async () => {
    await namespace(cp, 'history');
    await apply(cp, deploymentManifest('web', 'history', { replicas: 1, spec: { revisionHistoryLimit: 1 } }));
    await rolloutStatus(cp, 'history', 'web');
    for (const tag of ['1.28', '1.29', '1.30']) {
      await k(cp, 'set', 'image', 'deployment/web', `app=nginx:${tag}`, '-n', 'history');
      await rolloutStatus(cp, 'history', 'web');
    }
    const rss = await eventually(
      () => {
        const all = replicaSetsOf(cp, 'history', 'web');
        return all.length === 2 ? all : undefined;
      },
      { what: 'history cleaned to new + 1 old' },
    );
    const revisions = rss!.map((rs) => rs.metadata.annotations!['deployment.kubernetes.io/revision']).sort();
    assert.deepEqual(revisions, ['3', '4']);
  });

  test('a rollout that cannot progress reports ProgressDeadlineExceeded; rollout status fails', async () => {
    await namespace(cp, 'stuck');
    await apply(
      cp,
      deploymentManifest('web', 'stuck', {
        replicas: 1,
        spec: { progressDeadlineSeconds: 2 },
        podSpec: { nodeSelector: { 'no-such': 'node' } },
      }),
    );
    const d = await eventually(
      () => {
        const d = get(cp, 'deployment', 'stuck', 'web');
        return condition(d, 'Progressing')?.reason === 'ProgressDeadlineExceeded' ? d : undefined;
      },
      { timeoutMs: 15_000, what: 'progress deadline exceeded' },
    );
    const [rs] = replicaSetsOf(cp, 'stuck', 'web');
    assert.equal(condition(d, 'Progressing')?.status, 'False');
    assert.equal(condition(d, 'Progressing')?.message, `ReplicaSet "${rs.metadata.name}" has timed out progressing.`);
    assert.equal(condition(d, 'Available')?.status, 'False');
    assert.equal(condition(d, 'Available')?.reason, 'MinimumReplicasUnavailable');
    assert.equal(d!.status.unavailableReplicas, 1);
    const r = await kubectl(cp.kubeconfigPath, ['rollout', 'status', 'deployment/web', '-n', 'stuck', '--timeout=20s']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /exceeded its progress deadline/);
  });

  test('ReplicaSets left by an orphaning delete are adopted by a new Deployment with the same template', async () => {
    await namespace(cp, 'adopt');
    await apply(cp, deploymentManifest('web', 'adopt', { replicas: 2 }));
    await rolloutStatus(cp, 'adopt', 'web');
    const [rs] = replicaSetsOf(cp, 'adopt', 'web');
    const podNames = podsOf(cp, rs)
      .map((p) => p.metadata.name)
      .sort();
    await k(cp, 'delete', 'deployment', 'web', '-n', 'adopt', '--cascade=orphan');
    await eventually(() => !get(cp, 'deployment', 'adopt', 'web'), { what: 'deployment gone' });
    assert.equal(get(cp, 'rs', 'adopt', rs.metadata.name!)?.metadata.ownerReferences, undefined);

    await apply(cp, deploymentManifest('web', 'adopt', { replicas: 2 }));
    await rolloutStatus(cp, 'adopt', 'web');
    const d = get(cp, 'deployment', 'adopt', 'web')!;
    const adopted = get(cp, 'rs', 'adopt', rs.metadata.name!)!;
    assert.equal(controllerOf(adopted)?.uid, d.metadata.uid);
    assert.equal(replicaSetsOf(cp, 'adopt', 'web').length, 1);
    assert.deepEqual(
      podsOf(cp, adopted)
        .map((p) => p.metadata.name)
        .sort(),
      podNames,
      'the same pods keep running',
    );
    assert.equal(list(cp, 'rs', 'adopt').length, 1);
  });
});
