// ReplicaSets on their own: pods from the template with generateName and a controller reference,
// status counts that follow pod readiness, scaling with kubectl, replacement of deleted and
// terminal pods, adoption and release by labels, minReadySeconds, and cascading deletion.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { internalContext } from '../../../../src/kube/registry/context.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { apply, controllerOf, get, isLive, k, list, namespace, podsOf } from './helpers.ts';

const ctx = internalContext('test');

function rsManifest(name: string, ns: string, replicas: number, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: ns },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name, tier: 'web' }, annotations: { note: 'from-template' } },
        spec: { containers: [{ name: 'app', image: 'nginx' }] },
      },
      ...extra,
    },
  };
}

describe('replicaset controller', () => {
  let cp: TestCluster;
  const NS = 'rs';
  before(async () => {
    cp = await startTestCluster({ nodes: 2 });
    await namespace(cp, NS);
  });
  after(() => cp.stop());

  const rs = (name: string) => get(cp, 'rs', NS, name)!;
  const live = (name: string) => podsOf(cp, rs(name)).filter(isLive);
  const statusIs = (name: string, want: JsonObject) =>
    eventually(
      () => {
        const s = rs(name).status;
        return Object.entries(want).every(([f, v]) => (s[f] ?? 0) === v) ? s : undefined;
      },
      { what: `${name} status ${JSON.stringify(want)}` },
    );
  const podStatus = async (name: string, mutate: (status: JsonObject) => void) => {
    const podsDef = cp.internals.catalog.lookup('', 'v1', 'pods')!;
    await cp.internals.store.updateWith(
      podsDef,
      NS,
      name,
      ctx,
      (p) => {
        mutate(p.status as JsonObject);
        return p;
      },
      'status',
    );
  };

  test('creates pods from the template and reports them in status', async () => {
    await apply(cp, rsManifest('web', NS, 3));
    const status = await statusIs('web', { replicas: 3, readyReplicas: 3, availableReplicas: 3 });
    assert.deepEqual(status, {
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 1,
    });
    const pods = podsOf(cp, rs('web'));
    assert.equal(pods.length, 3);
    for (const p of pods) {
      assert.match(p.metadata.name!, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.equal(p.metadata.generateName, 'web-');
      assert.deepEqual(p.metadata.labels, { app: 'web', tier: 'web' });
      assert.deepEqual(p.metadata.annotations, { note: 'from-template' });
      assert.deepEqual(p.metadata.ownerReferences, [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web',
          uid: rs('web').metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      assert.equal(p.status.phase, 'Running');
    }
    assert.match(await k(cp, 'get', 'rs', 'web', '-n', NS, '--no-headers'), /^web\s+3\s+3\s+3\s/);
    const events = await k(cp, 'get', 'events', '-n', NS, '--field-selector', 'involvedObject.name=web');
    assert.match(events, /SuccessfulCreate\s+replicaset\/web\s+Created pod: web-/);
  });

  test('kubectl scale deletes extra pods and creates missing ones', async () => {
    await k(cp, 'scale', 'rs/web', '--replicas=1', '-n', NS);
    await statusIs('web', { replicas: 1, readyReplicas: 1, observedGeneration: 2 });
    assert.equal(live('web').length, 1);
    await k(cp, 'scale', 'rs/web', '--replicas=2', '-n', NS);
    await statusIs('web', { replicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 3 });
  });

  test('readiness changes show in status at once', async () => {
    const [pod] = live('web');
    await podStatus(pod.metadata.name!, (s) => {
      for (const c of s.conditions as JsonObject[]) if (c.type === 'Ready') c.status = 'False';
    });
    await statusIs('web', { replicas: 2, readyReplicas: 1, availableReplicas: 1 });
    await podStatus(pod.metadata.name!, (s) => {
      for (const c of s.conditions as JsonObject[]) if (c.type === 'Ready') c.status = 'True';
    });
    await statusIs('web', { replicas: 2, readyReplicas: 2, availableReplicas: 2 });
  });

  test('a deleted pod is replaced while it terminates, and not counted', async () => {
    const [victim] = live('web');
    await k(cp, 'delete', 'pod', victim.metadata.name!, '-n', NS, '--wait=false');
    await eventually(
      () => {
        const old = get(cp, 'pod', NS, victim.metadata.name!);
        const names = live('web').map((p) => p.metadata.name);
        // The replacement exists while the deleted pod is still terminating.
        return old?.metadata.deletionTimestamp && names.length === 2 && !names.includes(victim.metadata.name);
      },
      { what: 'replacement during termination' },
    );
    await eventually(() => !get(cp, 'pod', NS, victim.metadata.name!), { what: 'victim gone' });
    await statusIs('web', { replicas: 2, readyReplicas: 2 });
  });

  test('a pod in a terminal phase is deleted and replaced', async () => {
    const [pod] = live('web');
    await podStatus(pod.metadata.name!, (s) => {
      s.phase = 'Failed';
    });
    await eventually(() => !get(cp, 'pod', NS, pod.metadata.name!), { what: 'failed pod deleted' });
    await eventually(() => live('web').length === 2, { what: 'failed pod replaced' });
    await statusIs('web', { replicas: 2, readyReplicas: 2 });
  });

  test('orphans matching the selector are adopted; pods relabelled away are released', async () => {
    await apply(cp, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'stray', namespace: NS, labels: { app: 'web' } },
      spec: { containers: [{ name: 'app', image: 'nginx' }] },
    });
    // Adopted, and as the set is then one over, one pod (the unready newcomer first) goes.
    await eventually(() => live('web').length === 2 && list(cp, 'pod', NS).filter(isLive).length === 2, {
      what: 'adopted and trimmed',
    });
    for (const p of list(cp, 'pod', NS).filter(isLive)) assert.equal(controllerOf(p)?.name, 'web');

    const [kept] = live('web');
    await k(cp, 'label', 'pod', kept.metadata.name!, '-n', NS, 'app=other', '--overwrite');
    await eventually(() => !controllerOf(get(cp, 'pod', NS, kept.metadata.name!)!), { what: 'released' });
    await eventually(() => live('web').length === 2, { what: 'released pod replaced' });
    assert.ok(!live('web').some((p) => p.metadata.name === kept.metadata.name));
  });

  test('minReadySeconds: ready pods become available only after it', async () => {
    await apply(cp, rsManifest('slow', NS, 1, { minReadySeconds: 2 }));
    const early = await statusIs('slow', { replicas: 1, readyReplicas: 1 });
    assert.equal(early!.availableReplicas ?? 0, 0);
    await statusIs('slow', { replicas: 1, readyReplicas: 1, availableReplicas: 1 });
  });

  test('deleting a ReplicaSet deletes its pods', async () => {
    const pods = podsOf(cp, rs('slow'));
    assert.equal(pods.length, 1);
    await k(cp, 'delete', 'rs', 'slow', '-n', NS);
    await eventually(() => pods.every((p) => !get(cp, 'pod', NS, p.metadata.name!)), { what: 'pods collected' });
  });

  test('a namespace being deleted takes its ReplicaSets and pods with it', async () => {
    await namespace(cp, 'doomed');
    await apply(cp, rsManifest('web', 'doomed', 2));
    await eventually(() => list(cp, 'pod', 'doomed').filter(isLive).length === 2, { what: 'pods' });
    await k(cp, 'delete', 'namespace', 'doomed', '--timeout=60s');
    assert.equal(list(cp, 'rs', 'doomed').length, 0);
    assert.equal(list(cp, 'pod', 'doomed').length, 0);
  });
});
