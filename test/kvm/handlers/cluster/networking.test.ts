// The service and ingress handlers against an embedded control plane.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ingresses, Pods, Services, isNotFound } from '../../../../src/runtime/index.ts';
import type { KubeClient } from '../../../../src/runtime/index.ts';
import { ingressHandler } from '../../../../src/kvm/handlers/cluster/ingress.ts';
import type { Ingress } from '../../../../src/kvm/handlers/cluster/ingress.ts';
import { namespaceHandler } from '../../../../src/kvm/handlers/cluster/namespace.ts';
import { serviceHandler } from '../../../../src/kvm/handlers/cluster/service.ts';
import type { Service } from '../../../../src/kvm/handlers/cluster/service.ts';
import type { KvmDeps } from '../../../../src/kvm/deps.ts';
import type { KVMConfig } from '../../../../src/kvm/api/kvmconfig.ts';
import { eventually, startTestCluster } from '../../../helpers/control-plane.ts';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import { clientOf, installKvmCrds, recordingContext, sampleKvmConfig, testDeps } from '../../helpers.ts';

describe('service and ingress handlers', () => {
  let mc: TestCluster;
  let client: KubeClient;
  let deps: KvmDeps;
  before(async () => {
    mc = await startTestCluster();
    client = clientOf(mc);
    await installKvmCrds(client);
    deps = testDeps(client);
  });
  after(async () => {
    client.close();
    await mc.stop();
  });

  async function cluster(id: string): Promise<KVMConfig> {
    const c = sampleKvmConfig({ id });
    await namespaceHandler(deps).ensureCreated(c, recordingContext());
    return c;
  }

  async function missing(fn: () => Promise<unknown>): Promise<boolean> {
    try {
      await fn();
      return false;
    } catch (e) {
      if (isNotFound(e)) return true;
      throw e;
    }
  }

  it('creates master and worker services without selectors, and writes nothing when unchanged', async () => {
    const c = await cluster('svc1');
    const h = serviceHandler(deps);
    await h.ensureCreated(c, recordingContext());
    const master = await client.get<Service>(Services, 'master', 'svc1');
    const worker = await client.get<Service>(Services, 'worker', 'svc1');
    assert.equal(master.spec.type, 'ClusterIP');
    assert.deepEqual(
      master.spec.ports?.map((p) => [p.name, p.port, p.targetPort]),
      [
        ['etcd', 2379, 2379],
        ['api', 443, 443],
      ],
    );
    assert.equal(master.metadata.annotations?.['giantswarm.io/etcd-domain'], 'etcd.svc1.k8s.example.com:443');
    assert.equal(worker.spec.type, 'NodePort');
    assert.deepEqual(
      worker.spec.ports?.map((p) => [p.name, p.port, p.targetPort]),
      [
        ['http', 30010, 30010],
        ['https', 30011, 30011],
      ],
    );
    for (const s of [master, worker]) {
      assert.equal(s.spec.selector, undefined, 'the drainer owns the Endpoints');
      assert.equal(s.metadata.labels?.['giantswarm.io/managed-by'], 'kvm-operator');
    }

    const ctx = recordingContext();
    await h.ensureCreated(c, ctx);
    assert.deepEqual(ctx.flags, {});
    assert.equal(
      (await client.get(Services, 'master', 'svc1')).metadata.resourceVersion,
      master.metadata.resourceVersion,
    );
    assert.equal(
      (await client.get(Services, 'worker', 'svc1')).metadata.resourceVersion,
      worker.metadata.resourceVersion,
    );
  });

  it('updates changed ports and annotations, keeping the clusterIP and foreign labels', async () => {
    const c = await cluster('svc2');
    const h = serviceHandler(deps);
    await h.ensureCreated(c, recordingContext());
    const before = await client.get<Service>(Services, 'master', 'svc2');
    await client.patch(
      Services,
      'master',
      'svc2',
      { metadata: { labels: { team: 'x' }, annotations: { 'giantswarm.io/etcd-domain': 'old:443' } } },
      'merge',
    );

    c.spec.cluster.kubernetes = { api: { domain: 'api.svc2.k8s.example.com', securePort: 6443 } };
    c.spec.kvm.portMappings = [{ name: 'ingress', nodePort: 31500, targetPort: 30010 }];
    await h.ensureCreated(c, recordingContext());
    const master = await client.get<Service>(Services, 'master', 'svc2');
    assert.equal(master.spec.clusterIP, before.spec.clusterIP);
    assert.equal(master.metadata.labels?.team, 'x');
    assert.equal(master.metadata.annotations?.['giantswarm.io/etcd-domain'], 'etcd.svc2.k8s.example.com:443');
    assert.deepEqual(
      master.spec.ports?.map((p) => [p.name, p.port]),
      [
        ['etcd', 2379],
        ['api', 6443],
      ],
    );
    const worker = await client.get<Service>(Services, 'worker', 'svc2');
    assert.deepEqual(
      worker.spec.ports?.map((p) => [p.name, p.port, p.targetPort, p.nodePort]),
      [['ingress', 30010, 30010, 31500]],
    );
    const rv = worker.metadata.resourceVersion;
    await h.ensureCreated(c, recordingContext());
    assert.equal((await client.get(Services, 'worker', 'svc2')).metadata.resourceVersion, rv);
  });

  it('creates the api and etcd ingresses (v1, passthrough), and updates a changed host', async () => {
    const c = await cluster('ing1');
    const h = ingressHandler(deps);
    await h.ensureCreated(c, recordingContext());
    const api = await client.get<Ingress>(Ingresses, 'api', 'ing1');
    const etcd = await client.get<Ingress>(Ingresses, 'etcd', 'ing1');
    assert.equal(api.apiVersion, 'networking.k8s.io/v1');
    assert.equal(api.metadata.annotations?.['nginx.ingress.kubernetes.io/ssl-passthrough'], 'true');
    assert.equal(api.spec.rules?.[0].host, 'api.ing1.k8s.example.com');
    assert.deepEqual(api.spec.rules?.[0].http?.paths[0].backend.service, { name: 'master', port: { number: 443 } });
    assert.deepEqual(api.spec.tls, [{ hosts: ['api.ing1.k8s.example.com'] }]);
    assert.equal(etcd.spec.rules?.[0].host, 'etcd.ing1.k8s.example.com');
    assert.deepEqual(etcd.spec.rules?.[0].http?.paths[0].backend.service, { name: 'master', port: { number: 2379 } });

    await h.ensureCreated(c, recordingContext());
    assert.equal((await client.get(Ingresses, 'api', 'ing1')).metadata.resourceVersion, api.metadata.resourceVersion);
    assert.equal((await client.get(Ingresses, 'etcd', 'ing1')).metadata.resourceVersion, etcd.metadata.resourceVersion);

    c.spec.cluster.etcd = { ...c.spec.cluster.etcd, domain: 'etcd.new.example.com' };
    await h.ensureCreated(c, recordingContext());
    const moved = await client.get<Ingress>(Ingresses, 'etcd', 'ing1');
    assert.equal(moved.spec.rules?.[0].host, 'etcd.new.example.com');
    assert.deepEqual(moved.spec.tls, [{ hosts: ['etcd.new.example.com'] }]);
    assert.equal(moved.metadata.uid, etcd.metadata.uid);
  });

  for (const which of ['service', 'ingress'] as const) {
    it(`delete (${which}): waits while pods exist, then deletes both objects`, async () => {
      const id = `del-${which}`;
      const c = await cluster(id);
      const h = which === 'service' ? serviceHandler(deps) : ingressHandler(deps);
      const type = which === 'service' ? Services : Ingresses;
      const names = which === 'service' ? ['master', 'worker'] : ['api', 'etcd'];
      await h.ensureCreated(c, recordingContext());
      await client.create(Pods, {
        metadata: { name: 'master-m1-x', namespace: id },
        spec: { containers: [{ name: 'c', image: 'i' }] },
      });

      let ctx = recordingContext('delete');
      await h.ensureDeleted(c, ctx);
      assert.ok(ctx.flags.handlerCanceled);
      assert.ok(ctx.flags.finalizerKept);
      assert.equal(ctx.flags.reconciliationCanceled, undefined);
      for (const n of names) await client.get(type, n, id);

      await client.delete(Pods, 'master-m1-x', id, { gracePeriodSeconds: 0 });
      await eventually(async () => (await client.list(Pods, { namespace: id })).items.length === 0, {
        what: 'pod gone',
      });
      ctx = recordingContext('delete');
      await h.ensureDeleted(c, ctx);
      assert.deepEqual(ctx.flags, {});
      for (const n of names) assert.ok(await missing(() => client.get(type, n, id)), `${n} deleted`);
    });
  }
});
