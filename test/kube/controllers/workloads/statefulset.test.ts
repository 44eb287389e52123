// StatefulSets run as with kube-controller-manager's statefulset controller
// (pkg/controller/statefulset/stateful_set_control.go, stateful_set_utils.go,
// stateful_pod_control.go): ordered creation and deletion, pod identity, PVCs from
// volumeClaimTemplates, ControllerRevisions, rolling updates from the highest ordinal down, and
// `kubectl rollout status|history|undo sts` with the pinned kubectl versions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import { apply, controllerOf, get, isReady, k, list, namespace, watchPods, type Obj } from './helpers.ts';

function stsManifest(name: string, ns: string, opts: { replicas?: number; policy?: string; image?: string } = {}): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: ns },
    spec: {
      replicas: opts.replicas ?? 3,
      serviceName: name,
      podManagementPolicy: opts.policy ?? 'OrderedReady',
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            { name: 'app', image: opts.image ?? 'nginx:1.27', volumeMounts: [{ name: 'www', mountPath: '/data' }] },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'www' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ],
    },
  } as unknown as Obj;
}

/** Pods of `ns` in the order they were created (by the revision of their creation). */
function creationOrder(created: Array<{ name: string; rv: number }>): string[] {
  return [...created].sort((a, b) => a.rv - b.rv).map((c) => c.name);
}

async function stsSettled(cp: TestCluster, ns: string, name: string): Promise<Obj> {
  return (await eventually(
    () => {
      const s = get(cp, 'sts', ns, name);
      if (!s) return undefined;
      const want = s.spec.replicas as number;
      const st = s.status;
      const ok =
        st.observedGeneration === s.metadata.generation &&
        st.replicas === want &&
        (st.readyReplicas ?? 0) === want &&
        (st.updatedReplicas ?? 0) === want &&
        st.currentRevision === st.updateRevision;
      return ok ? s : undefined;
    },
    { timeoutMs: 30_000, what: `statefulset ${ns}/${name} settled` },
  ))!;
}

describe('statefulset controller', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 2 });
  });
  after(() => cp.stop());

  test('OrderedReady: pods 0,1,2 one at a time, identity, PVCs, revision, status, rollout status', async () => {
    await namespace(cp, 'ordered');
    // Each pod is created only once its predecessor is Running and Ready.
    const created: Array<{ name: string; rv: number }> = [];
    const violations: string[] = [];
    const w = watchPods(cp, 'ordered', (pods, name) => {
      const p = pods.get(name);
      if (!p || created.some((c) => c.name === name)) return;
      created.push({ name, rv: Number(p.metadata.resourceVersion) });
      const ord = Number(name.split('-').pop());
      const prev = pods.get(`web-${ord - 1}`);
      if (ord > 0 && !(prev && prev.status.phase === 'Running' && isReady(prev))) violations.push(name);
    });
    try {
      await apply(cp, stsManifest('web', 'ordered'));
      for (const version of ['1.27', '1.33']) {
        const r = await kubectl(cp.kubeconfigPath, ['rollout', 'status', 'sts/web', '-n', 'ordered', '--timeout=60s'], {
          version,
        });
        assert.equal(r.code, 0, `${version}: ${r.stderr}`);
        // kubectl's StatefulSetStatusViewer with the defaulted rollingUpdate.partition 0.
        assert.match(r.stdout, /partitioned roll out complete: 3 new pods have been updated\.\.\./, version);
      }
    } finally {
      w.stop();
    }
    assert.deepEqual(creationOrder(created), ['web-0', 'web-1', 'web-2']);
    assert.deepEqual(violations, []);

    const sts = await stsSettled(cp, 'ordered', 'web');
    const [revision] = list(cp, 'revision', 'ordered');
    assert.ok(revision, 'a ControllerRevision');
    const revName = revision.metadata.name!;
    assert.match(revName, /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    // apps/v1 StatefulSetStatus, in the Go struct's field order with omitempty.
    assert.deepEqual(
      JSON.stringify(sts.status),
      JSON.stringify({
        observedGeneration: 1,
        replicas: 3,
        readyReplicas: 3,
        currentReplicas: 3,
        updatedReplicas: 3,
        currentRevision: revName,
        updateRevision: revName,
        collisionCount: 0,
        availableReplicas: 3,
      }),
    );

    // history.NewControllerRevision + statefulset getPatch.
    assert.equal(revision.revision, 1);
    assert.equal(controllerOf(revision)?.uid, sts.metadata.uid);
    assert.equal(revision.metadata.labels!.app, 'web');
    assert.equal(`web-${revision.metadata.labels!['controller.kubernetes.io/hash']}`, revName);
    const tpl = ((revision.data as Obj).spec as Obj).template as Obj;
    assert.equal(tpl.$patch, 'replace');
    assert.equal((tpl.metadata as Obj).creationTimestamp, null);

    for (let i = 0; i < 3; i++) {
      const p = get(cp, 'pod', 'ordered', `web-${i}`)!;
      assert.equal(p.metadata.generateName, 'web-');
      assert.deepEqual(p.metadata.labels, {
        app: 'web',
        'apps.kubernetes.io/pod-index': String(i),
        'controller-revision-hash': revName,
        'statefulset.kubernetes.io/pod-name': `web-${i}`,
      });
      assert.equal(p.spec.hostname, `web-${i}`);
      assert.equal(p.spec.subdomain, 'web');
      const ref = controllerOf(p);
      assert.equal(ref?.kind, 'StatefulSet');
      assert.equal(ref?.uid, sts.metadata.uid);
      assert.deepEqual((p.spec.volumes as Obj[]).find((v) => v.name === 'www')?.persistentVolumeClaim, {
        claimName: `www-web-${i}`,
      });
      const pvc = get(cp, 'pvc', 'ordered', `www-web-${i}`)!;
      assert.ok(pvc, `PVC www-web-${i}`);
      assert.deepEqual(pvc.metadata.labels, { app: 'web' });
      // Retain/Retain (the default): the claim has no owner, so it outlives pods and set.
      assert.equal(pvc.metadata.ownerReferences, undefined);
    }
    const events = list(cp, 'event', 'ordered').map((e) => e.message);
    assert.ok(events.includes('create Pod web-0 in StatefulSet web successful'), JSON.stringify(events));
    assert.ok(events.includes('create Claim www-web-0 Pod web-0 in StatefulSet web success'), JSON.stringify(events));
  });

  test('image change rolls 2,1,0; rollout history and undo through ControllerRevisions', async () => {
    await namespace(cp, 'roll');
    await apply(cp, stsManifest('web', 'roll'));
    const first = await stsSettled(cp, 'roll', 'web');
    const deleted: string[] = [];
    const w = watchPods(cp, 'roll', (pods, name) => {
      const p = pods.get(name);
      if (p?.metadata.deletionTimestamp && !deleted.includes(name)) deleted.push(name);
      if (!p && !deleted.includes(name)) deleted.push(name);
    });
    try {
      await k(cp, 'set', 'image', 'sts/web', 'app=nginx:1.28', '-n', 'roll');
      const out = await k(cp, 'rollout', 'status', 'sts/web', '-n', 'roll', '--timeout=60s');
      assert.match(out, /partitioned roll out complete: 3 new pods have been updated/);
      await eventually(() => get(cp, 'sts', 'roll', 'web')?.status.currentRevision !== first.status.currentRevision, {
        what: 'current revision moved',
      });
    } finally {
      w.stop();
    }
    assert.deepEqual(deleted, ['web-2', 'web-1', 'web-0']);
    const rolled = await stsSettled(cp, 'roll', 'web');
    assert.notEqual(rolled.status.updateRevision, first.status.updateRevision);
    for (let i = 0; i < 3; i++) {
      const p = get(cp, 'pod', 'roll', `web-${i}`)!;
      assert.equal((p.spec.containers as Obj[])[0].image, 'nginx:1.28');
      assert.equal(p.metadata.labels!['controller-revision-hash'], rolled.status.updateRevision);
    }
    assert.equal(list(cp, 'revision', 'roll').length, 2);

    for (const version of ['1.27', '1.33']) {
      const r = await kubectl(cp.kubeconfigPath, ['rollout', 'history', 'sts/web', '-n', 'roll'], { version });
      assert.equal(r.code, 0, `${version}: ${r.stderr}`);
      assert.match(r.stdout, /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/, version);
    }
    // kubectl's StatefulSetRollbacker applies the previous revision's data as a strategic merge patch.
    const undo = await kubectl(cp.kubeconfigPath, ['rollout', 'undo', 'sts/web', '-n', 'roll'], { version: '1.27' });
    assert.equal(undo.code, 0, undo.stderr);
    assert.match(undo.stdout, /statefulset.apps\/web rolled back/);
    await eventually(
      () => {
        const s = get(cp, 'sts', 'roll', 'web');
        if (!s) return false;
        return (
          s.status.updateRevision === first.status.updateRevision &&
          s.status.currentRevision === s.status.updateRevision
        );
      },
      { timeoutMs: 30_000, what: 'rolled back to the first revision' },
    );
    await stsSettled(cp, 'roll', 'web');
    // The first revision is renumbered, not copied (getStatefulSetRevisions).
    const revisions = list(cp, 'revision', 'roll');
    assert.equal(revisions.length, 2);
    assert.equal(revisions.find((r) => r.metadata.name === first.status.updateRevision)?.revision, 3);
    assert.equal((get(cp, 'pod', 'roll', 'web-0')!.spec.containers as Obj[])[0].image, 'nginx:1.27');
    // kubectl compares the revision's data byte for byte with the patch it computes from the live
    // set (statefulsetMatch in kubectl's rollback.go): the data is Go's encoding, keys sorted.
    for (const version of ['1.27', '1.33']) {
      const same = await kubectl(cp.kubeconfigPath, ['rollout', 'undo', 'sts/web', '-n', 'roll', '--to-revision=3'], {
        version,
      });
      assert.equal(same.code, 0, same.stderr);
      assert.match(same.stdout, /skipped rollback \(current template already matches revision 3\)/, version);
    }
  });

  test('scale down deletes the highest ordinal first, one at a time; PVCs are kept', async () => {
    await namespace(cp, 'down');
    await apply(cp, stsManifest('web', 'down'));
    await stsSettled(cp, 'down', 'web');
    const marked: string[] = [];
    const w = watchPods(cp, 'down', (pods, name) => {
      const p = pods.get(name);
      if ((!p || p.metadata.deletionTimestamp) && !marked.includes(name)) {
        // OrderedReady: web-1 is not touched while web-2 still exists.
        if (name === 'web-1' && pods.has('web-2')) marked.push('web-1 while web-2 existed');
        marked.push(name);
      }
    });
    try {
      await k(cp, 'scale', 'sts/web', '--replicas=1', '-n', 'down');
      await eventually(() => list(cp, 'pod', 'down').length === 1, { timeoutMs: 30_000, what: 'one pod left' });
    } finally {
      w.stop();
    }
    assert.deepEqual(marked, ['web-2', 'web-1']);
    assert.ok(get(cp, 'pod', 'down', 'web-0'));
    const s = await stsSettled(cp, 'down', 'web');
    assert.equal(s.status.replicas, 1);
    assert.deepEqual(
      list(cp, 'pvc', 'down').map((p) => p.metadata.name),
      ['www-web-0', 'www-web-1', 'www-web-2'],
    );
  });

  test('persistentVolumeClaimRetentionPolicy Delete/Delete: claims go with scaled-down pods and with the set', async () => {
    await namespace(cp, 'retention');
    const manifest = stsManifest('web', 'retention', { replicas: 2 });
    manifest.spec.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Delete', whenScaled: 'Delete' };
    await apply(cp, manifest);
    const sts = await stsSettled(cp, 'retention', 'web');
    // updateClaimOwnerRefForSetAndPod: a plain (non-controller) reference to the set.
    assert.deepEqual(get(cp, 'pvc', 'retention', 'www-web-0')!.metadata.ownerReferences, [
      { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: sts.metadata.uid },
    ]);
    await k(cp, 'scale', 'sts/web', '--replicas=1', '-n', 'retention');
    await eventually(() => !get(cp, 'pvc', 'retention', 'www-web-1'), {
      timeoutMs: 30_000,
      what: 'the scaled-down pod took its claim',
    });
    assert.ok(get(cp, 'pvc', 'retention', 'www-web-0'));
    await k(cp, 'delete', 'sts/web', '-n', 'retention');
    await eventually(() => list(cp, 'pvc', 'retention').length === 0, {
      timeoutMs: 30_000,
      what: 'claims deleted with the set',
    });
  });

  test('Parallel creates every pod without waiting; delete cascades to pods and revisions', async () => {
    await namespace(cp, 'parallel');
    let createdBeforeReady = 0;
    const seen = new Set<string>();
    const w = watchPods(cp, 'parallel', (pods, name) => {
      if (!pods.has(name) || seen.has(name)) return;
      seen.add(name);
      if (![...pods.values()].some((p) => isReady(p))) createdBeforeReady++;
    });
    try {
      await apply(cp, stsManifest('db', 'parallel', { policy: 'Parallel' }));
      await stsSettled(cp, 'parallel', 'db');
    } finally {
      w.stop();
    }
    assert.equal(createdBeforeReady, 3, 'all three pods created before any was Ready');
    await k(cp, 'delete', 'sts/db', '-n', 'parallel', '--wait=true');
    await eventually(() => list(cp, 'pod', 'parallel').length === 0 && list(cp, 'revision', 'parallel').length === 0, {
      timeoutMs: 30_000,
      what: 'pods and ControllerRevisions collected',
    });
    assert.equal(list(cp, 'pvc', 'parallel').length, 3);
  });
});
