// core/v1 ReplicationControllers through the kubectl versions we pin: created with the selector
// defaulted from the template labels, pods created and deleted by the controller (the
// ReplicaSet controller run over RCs, as kube's ReplicationManager), `kubectl scale rc`, the
// status counts, kube's table columns and the cascading delete of RC-owned pods.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { call } from '../../server/http.ts';
import { controllerOf, isLive, list, namespace, type Obj } from './helpers.ts';

const VERSIONS = ['1.27', '1.33'];

function rcManifest(name: string, replicas: number): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name },
    spec: {
      replicas,
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image: 'nginx' }] },
      },
    },
  };
}

describe('replication controller', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 2 });
  });
  after(() => cp.stop());

  const rc = (ns: string, name: string): Obj | undefined => {
    const s = cp.internals.storage.get(`/core/replicationcontrollers/${ns}/${name}`);
    return s ? (JSON.parse(s.json) as Obj) : undefined;
  };
  const livePods = (ns: string, name: string): Obj[] =>
    list(cp, 'pod', ns).filter((p) => isLive(p) && controllerOf(p)?.uid === rc(ns, name)?.metadata.uid);

  for (const version of VERSIONS) {
    test(`kubectl ${version}: create, get, scale rc; pods follow`, async () => {
      const ns = `rc-${version.replace('.', '-')}`;
      await namespace(cp, ns);
      const k = async (...args: string[]) => {
        const r = await kubectl(cp.kubeconfigPath, ['-n', ns, ...args], {
          version,
          input: args.includes('-') ? JSON.stringify(rcManifest('web', 2)) : undefined,
        });
        assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
        return r.stdout;
      };
      assert.equal((await k('create', '-f', '-')).trim(), 'replicationcontroller/web created');

      // Defaults as kube: the selector and the RC's labels come from the template labels.
      const created = rc(ns, 'web')!;
      assert.deepEqual(created.spec.selector, { app: 'web' });
      assert.deepEqual(created.metadata.labels, { app: 'web' });

      await eventually(() => livePods(ns, 'web').length === 2, { what: '2 pods' });
      const pod = livePods(ns, 'web')[0];
      assert.match(pod.metadata.name!, /^web-[a-z0-9]{5}$/);
      assert.deepEqual(controllerOf(pod), {
        apiVersion: 'v1',
        kind: 'ReplicationController',
        name: 'web',
        uid: created.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      });
      await eventually(() => rc(ns, 'web')?.status.readyReplicas === 2, { what: 'readyReplicas 2' });
      assert.deepEqual(rc(ns, 'web')!.status, {
        replicas: 2,
        fullyLabeledReplicas: 2,
        readyReplicas: 2,
        availableReplicas: 2,
        observedGeneration: 1,
      });

      // Columns of kube's replicationControllerColumnDefinitions (pkg/printers/internalversion/printers.go).
      const table = await k('get', 'rc');
      assert.match(table, /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\n/);
      assert.match(table, /\nweb\s+2\s+2\s+2\s+\d+s\n/);
      assert.match(
        await k('get', 'rc', '-o', 'wide'),
        /CONTAINERS\s+IMAGES\s+SELECTOR\nweb\s+2\s+2\s+2\s+\S+\s+web\s+nginx\s+app=web\n/,
      );
      assert.match(await k('get', 'replicationcontrollers', 'web', '-o', 'name'), /^replicationcontroller\/web\n$/);

      assert.equal((await k('scale', 'rc', 'web', '--replicas=3')).trim(), 'replicationcontroller/web scaled');
      await eventually(() => livePods(ns, 'web').length === 3, { what: '3 pods' });
      await eventually(
        () => rc(ns, 'web')?.status.readyReplicas === 3 && rc(ns, 'web')?.status.observedGeneration === 2,
        {
          what: 'status after scale up',
        },
      );

      await k('scale', 'rc', 'web', '--replicas=1');
      await eventually(() => livePods(ns, 'web').length === 1, { what: 'scaled down to 1 pod' });
      await eventually(() => rc(ns, 'web')?.status.replicas === 1, { what: 'status.replicas 1' });

      // A pod deleted by hand is replaced.
      const [only] = livePods(ns, 'web');
      await k('delete', 'pod', only.metadata.name!, '--wait=false');
      await eventually(() => livePods(ns, 'web').some((p) => p.metadata.uid !== only.metadata.uid), {
        what: 'a replacement pod',
      });

      // The garbage collector deletes RC-owned pods with their owner.
      await k('delete', 'rc', 'web');
      await eventually(() => list(cp, 'pod', ns).filter((p) => controllerOf(p)?.name === 'web').length === 0, {
        what: 'pods collected',
        timeoutMs: 30_000,
      });
    });
  }

  test('the scale subresource reports the equality-based selector', async () => {
    const ns = 'rc-scale';
    await namespace(cp, ns);
    const r = await call(cp, 'POST', `/api/v1/namespaces/${ns}/replicationcontrollers`, { body: rcManifest('s', 1) });
    assert.equal(r.status, 201, r.body);
    const scale = await call(cp, 'GET', `/api/v1/namespaces/${ns}/replicationcontrollers/s/scale`);
    assert.equal(scale.status, 200, scale.body);
    const body = JSON.parse(scale.body) as JsonObject;
    assert.equal(body.kind, 'Scale');
    assert.equal(body.apiVersion, 'autoscaling/v1');
    assert.deepEqual(body.spec, { replicas: 1 });
    await eventually(async () => {
      const s = JSON.parse((await call(cp, 'GET', `/api/v1/namespaces/${ns}/replicationcontrollers/s/scale`)).body);
      return (s as { status: JsonObject }).status.replicas === 1 ? s : undefined;
    });
    const again = JSON.parse(
      (await call(cp, 'GET', `/api/v1/namespaces/${ns}/replicationcontrollers/s/scale`)).body,
    ) as JsonObject;
    assert.deepEqual(again.status, { replicas: 1, selector: 'app=s' });
  });

  test('validation as kube: selector must match the template labels', async () => {
    const bad = rcManifest('bad', 1);
    (bad.spec as JsonObject).selector = { app: 'other' };
    const r = await kubectl(cp.kubeconfigPath, ['create', '-f', '-'], { version: '1.33', input: JSON.stringify(bad) });
    assert.notEqual(r.code, 0);
    // ValidatePodTemplateSpecForRC (pkg/apis/core/validation/validation.go).
    assert.match(
      r.stderr,
      /ReplicationController "bad" is invalid: spec\.template\.metadata\.labels: Invalid value: map\[string\]string\{"app":"bad"\}: `selector` does not match template `labels`/,
    );
    const noTemplate = { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'empty' }, spec: {} };
    const r2 = await call(cp, 'POST', '/api/v1/namespaces/default/replicationcontrollers', { body: noTemplate });
    assert.equal(r2.status, 422);
    const causes = (JSON.parse(r2.body) as { details: { causes: JsonObject[] } }).details.causes;
    assert.deepEqual(
      causes.map((c) => `${String(c.field)}: ${String(c.reason)}`),
      ['spec.selector: FieldValueRequired', 'spec.template: FieldValueRequired'],
    );
  });
});
