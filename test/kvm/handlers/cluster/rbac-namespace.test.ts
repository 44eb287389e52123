// The namespace, service account and cluster role binding handlers against an embedded control plane.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ClusterRoleBindings,
  Deployments,
  Namespaces,
  Pods,
  ServiceAccounts,
  isNotFound,
} from '../../../../src/runtime/index.ts';
import type { KubeClient, KubeObject } from '../../../../src/runtime/index.ts';
import { clusterRoleBindingHandler } from '../../../../src/kvm/handlers/cluster/clusterrolebinding.ts';
import type { ClusterRoleBinding } from '../../../../src/kvm/handlers/cluster/clusterrolebinding.ts';
import { namespaceHandler } from '../../../../src/kvm/handlers/cluster/namespace.ts';
import { serviceAccountHandler } from '../../../../src/kvm/handlers/cluster/serviceaccount.ts';
import type { KvmDeps } from '../../../../src/kvm/deps.ts';
import { eventually, startTestCluster } from '../../../helpers/control-plane.ts';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import { clientOf, installKvmCrds, recordingContext, sampleKvmConfig, testDeps } from '../../helpers.ts';

async function gone(client: KubeClient, fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return false;
  } catch (e) {
    if (isNotFound(e)) return true;
    throw e;
  }
}

function pod(namespace: string, name: string): KubeObject {
  return { metadata: { name, namespace }, spec: { containers: [{ name: 'k8s-kvm', image: 'k8s-kvm' }] } };
}

describe('namespace, serviceaccount and clusterrolebinding handlers', () => {
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

  it('creates the namespace and the service account with the legacy and managed labels, once', async () => {
    const c = sampleKvmConfig({ id: 'ns1' });
    await namespaceHandler(deps).ensureCreated(c, recordingContext());
    await serviceAccountHandler(deps).ensureCreated(c, recordingContext());
    const ns = await client.get(Namespaces, 'ns1');
    assert.equal(ns.metadata.labels?.cluster, 'ns1');
    assert.equal(ns.metadata.labels?.customer, 'acme');
    assert.equal(ns.metadata.labels?.['giantswarm.io/managed-by'], 'kvm-operator');
    const sa = await client.get(ServiceAccounts, 'ns1', 'ns1');
    assert.equal(sa.metadata.labels?.['giantswarm.io/cluster'], 'ns1');

    const ctx = recordingContext();
    await namespaceHandler(deps).ensureCreated(c, ctx);
    await serviceAccountHandler(deps).ensureCreated(c, ctx);
    assert.equal((await client.get(Namespaces, 'ns1')).metadata.resourceVersion, ns.metadata.resourceVersion);
    assert.equal(
      (await client.get(ServiceAccounts, 'ns1', 'ns1')).metadata.resourceVersion,
      sa.metadata.resourceVersion,
    );
    assert.deepEqual(ctx.flags, {});
  });

  it('delete: waits for pods and our deployments, then deletes the namespace and cancels the reconciliation', async () => {
    const c = sampleKvmConfig({ id: 'ns2' });
    const h = namespaceHandler(deps);
    await h.ensureCreated(c, recordingContext());
    await client.create(Pods, pod('ns2', 'master-m1-abc'));
    await client.create(Deployments, {
      metadata: { name: 'master-m1', namespace: 'ns2', labels: { 'giantswarm.io/managed-by': 'kvm-operator' } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'master' } },
        template: { metadata: { labels: { app: 'master' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    });

    let ctx = recordingContext('delete');
    await h.ensureDeleted(c, ctx);
    assert.match(ctx.flags.handlerCanceled ?? '', /1 pod\(s\), 1 deployment\(s\)/);
    assert.ok(ctx.flags.finalizerKept);
    assert.equal(ctx.flags.reconciliationCanceled, undefined, 'later handlers must still run to delete what is left');
    assert.equal((await client.get(Namespaces, 'ns2')).metadata.deletionTimestamp, undefined);

    await client.delete(Pods, 'master-m1-abc', 'ns2', { gracePeriodSeconds: 0 });
    await eventually(async () => (await client.list(Pods, { namespace: 'ns2' })).items.length === 0, {
      what: 'pod gone',
    });
    ctx = recordingContext('delete');
    await h.ensureDeleted(c, ctx);
    assert.match(ctx.flags.handlerCanceled ?? '', /deployment/);
    assert.doesNotMatch(ctx.flags.handlerCanceled ?? '', /pod/);

    await client.delete(Deployments, 'master-m1', 'ns2');
    await eventually(async () => (await client.list(Deployments, { namespace: 'ns2' })).items.length === 0, {
      what: 'deployment gone',
    });
    ctx = recordingContext('delete');
    await h.ensureDeleted(c, ctx);
    assert.ok(ctx.flags.reconciliationCanceled);
    assert.ok(ctx.flags.finalizerKept);
    await eventually(
      async () =>
        (await gone(client, () => client.get(Namespaces, 'ns2'))) ||
        (await client.get(Namespaces, 'ns2')).metadata.deletionTimestamp,
      { what: 'namespace deleted' },
    );

    // Next loop: terminating → wait (handler only); gone → nothing at all.
    ctx = recordingContext('delete');
    await h.ensureDeleted(c, ctx);
    if (ctx.flags.handlerCanceled) {
      assert.ok(ctx.flags.finalizerKept);
      assert.equal(ctx.flags.reconciliationCanceled, undefined);
    }
    await eventually(() => gone(client, () => client.get(Namespaces, 'ns2')), { what: 'namespace gone' });
    ctx = recordingContext('delete');
    await h.ensureDeleted(c, ctx);
    assert.deepEqual(ctx.flags, {});
  });

  it('update path: a terminating namespace stops the loop until it is gone, then it is recreated', async () => {
    const c = sampleKvmConfig({ id: 'ns3' });
    const h = namespaceHandler(deps);
    await h.ensureCreated(c, recordingContext());
    // A pod keeps the namespace terminating (the simulated namespace controller waits for it).
    await client.create(Pods, {
      ...pod('ns3', 'p'),
      metadata: { name: 'p', namespace: 'ns3', finalizers: ['test/hold'] },
    });
    await client.delete(Namespaces, 'ns3');
    let ctx = recordingContext();
    await h.ensureCreated(c, ctx);
    assert.match(ctx.flags.reconciliationCanceled ?? '', /terminating/);
    await client.patch(Pods, 'p', 'ns3', { metadata: { finalizers: null } }, 'merge');
    await eventually(() => gone(client, () => client.get(Namespaces, 'ns3')), { what: 'namespace gone' });
    ctx = recordingContext();
    await h.ensureCreated(c, ctx);
    assert.deepEqual(ctx.flags, {});
    assert.equal((await client.get(Namespaces, 'ns3')).metadata.deletionTimestamp, undefined);
  });

  it('creates both cluster role bindings, writes nothing when unchanged, and recreates one whose role changed', async () => {
    const c = sampleKvmConfig({ id: 'rb1' });
    const h = clusterRoleBindingHandler(deps);
    await h.ensureCreated(c, recordingContext());
    const general = await client.get<ClusterRoleBinding>(ClusterRoleBindings, 'rb1');
    const psp = await client.get<ClusterRoleBinding>(ClusterRoleBindings, 'rb1-psp');
    assert.equal(general.roleRef.name, deps.options.clusterRoleGeneral);
    assert.equal(psp.roleRef.name, deps.options.clusterRolePsp);
    for (const b of [general, psp]) {
      assert.deepEqual(
        b.subjects?.map((s) => [s.kind, s.name, s.namespace]),
        [['ServiceAccount', 'rb1', 'rb1']],
      );
      assert.equal(b.metadata.labels?.['giantswarm.io/managed-by'], 'kvm-operator');
    }

    await h.ensureCreated(c, recordingContext());
    assert.equal(
      (await client.get(ClusterRoleBindings, 'rb1')).metadata.resourceVersion,
      general.metadata.resourceVersion,
    );
    assert.equal(
      (await client.get(ClusterRoleBindings, 'rb1-psp')).metadata.resourceVersion,
      psp.metadata.resourceVersion,
    );

    // A changed subject is updated in place.
    await client.patch(
      ClusterRoleBindings,
      'rb1',
      undefined,
      { subjects: [{ kind: 'ServiceAccount', name: 'x', namespace: 'x' }] },
      'merge',
    );
    await h.ensureCreated(c, recordingContext());
    const updated = await client.get<ClusterRoleBinding>(ClusterRoleBindings, 'rb1');
    assert.equal(updated.metadata.uid, general.metadata.uid);
    assert.equal(updated.subjects?.[0].name, 'rb1');

    // A new role (flag change) is a new binding: roleRef is immutable.
    const moved = testDeps(client, { options: { clusterRolePsp: 'restricted-psp' } });
    await clusterRoleBindingHandler(moved).ensureCreated(c, recordingContext());
    const replaced = await client.get<ClusterRoleBinding>(ClusterRoleBindings, 'rb1-psp');
    assert.equal(replaced.roleRef.name, 'restricted-psp');
    assert.notEqual(replaced.metadata.uid, psp.metadata.uid);
    assert.equal((await client.get(ClusterRoleBindings, 'rb1')).metadata.uid, general.metadata.uid);
  });

  it('delete: keeps the bindings while pods remain, deletes them after', async () => {
    const c = sampleKvmConfig({ id: 'rb2' });
    await namespaceHandler(deps).ensureCreated(c, recordingContext());
    const h = clusterRoleBindingHandler(deps);
    await h.ensureCreated(c, recordingContext());
    await client.create(Pods, pod('rb2', 'worker-w1-abc'));

    let ctx = recordingContext('delete');
    await h.ensureDeleted(c, ctx);
    assert.ok(ctx.flags.handlerCanceled);
    assert.ok(ctx.flags.finalizerKept);
    assert.equal(ctx.flags.reconciliationCanceled, undefined);
    await client.get(ClusterRoleBindings, 'rb2');
    await client.get(ClusterRoleBindings, 'rb2-psp');

    await client.delete(Pods, 'worker-w1-abc', 'rb2', { gracePeriodSeconds: 0 });
    await eventually(async () => (await client.list(Pods, { namespace: 'rb2' })).items.length === 0, {
      what: 'pod gone',
    });
    ctx = recordingContext('delete');
    await h.ensureDeleted(c, ctx);
    assert.deepEqual(ctx.flags, {});
    assert.ok(await gone(client, () => client.get(ClusterRoleBindings, 'rb2')));
    assert.ok(await gone(client, () => client.get(ClusterRoleBindings, 'rb2-psp')));
    // Again: nothing left to delete, no error.
    await h.ensureDeleted(c, recordingContext('delete'));
  });
});
