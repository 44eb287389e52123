import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import type { KubeObject, ResourceType } from '../../../src/runtime/client/types.ts';
import { ConfigMaps, Pods, customResource, Nodes } from '../../../src/runtime/client/resources.ts';
import { ControllerBuilder, generationChanged, requestsForOwner } from '../../../src/runtime/controller/index.ts';
import type { ControllerHost, Request } from '../../../src/runtime/controller/index.ts';
import type { Runnable } from '../../../src/runtime/manager/runnable.ts';
import { FakeClock } from '../../../src/runtime/util/clock.ts';
import { silentLogger } from '../../../src/runtime/util/logger.ts';
import { waitFor } from '../../helpers/wait.ts';
import { FakeInformer, obj } from './fake-informer.ts';

const PodSets = customResource('examples.peerpods.io', 'v1alpha1', 'PodSet', 'podsets', true);

class FakeHost implements ControllerHost {
  readonly informers = new Map<string, FakeInformer>();
  readonly runnables: Runnable[] = [];
  readonly logger = silentLogger();
  readonly metricsRegistry = new Registry();
  readonly clock = new FakeClock();
  informerFor<T extends KubeObject>(type: ResourceType): FakeInformer<T> {
    let i = this.informers.get(type.kind);
    if (!i) this.informers.set(type.kind, (i = new FakeInformer()));
    return i as unknown as FakeInformer<T>;
  }
  add(r: Runnable): void {
    this.runnables.push(r);
  }
}

function owned(name: string, ownerRefs: NonNullable<KubeObject['metadata']['ownerReferences']>, ns = 'default') {
  return obj(name, { ownerReferences: ownerRefs }, ns);
}

const ref = (over: Partial<{ apiVersion: string; kind: string; name: string; controller: boolean }> = {}) => ({
  apiVersion: 'examples.peerpods.io/v1alpha1',
  kind: 'PodSet',
  name: 'set',
  uid: 'u1',
  controller: true,
  ...over,
});

describe('owner mapping (owns)', () => {
  const map = requestsForOwner(PodSets);
  it('maps the controller owner of the same group/kind to its key in the object namespace', () => {
    assert.deepEqual(map(owned('p', [ref()], 'ns1')), [{ namespace: 'ns1', name: 'set' }]);
  });
  it('ignores the version, other kinds, other groups and non-controller owners', () => {
    assert.deepEqual(map(owned('p', [ref({ apiVersion: 'examples.peerpods.io/v1' })])), [
      { namespace: 'default', name: 'set' },
    ]);
    assert.deepEqual(map(owned('p', [ref({ kind: 'ReplicaSet' })])), []);
    assert.deepEqual(map(owned('p', [ref({ apiVersion: 'other.io/v1alpha1' })])), []);
    assert.deepEqual(map(owned('p', [ref({ controller: false })])), []);
    assert.deepEqual(map(obj('p')), []);
  });
  it('maps non-controller owners too when asked, and cluster-scoped owners without namespace', () => {
    const any = requestsForOwner(PodSets, { onlyController: false });
    assert.deepEqual(any(owned('p', [ref({ controller: false, name: 'a' }), ref({ controller: false, name: 'b' })])), [
      { namespace: 'default', name: 'a' },
      { namespace: 'default', name: 'b' },
    ]);
    const byNode = requestsForOwner(Nodes);
    assert.deepEqual(byNode(owned('p', [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'x', controller: true }])), [
      { name: 'n1' },
    ]);
  });
});

describe('ControllerBuilder', () => {
  it('wires for/owns/watches with predicates and event filters into one queue', async () => {
    const host = new FakeHost();
    const seen: Request[] = [];
    const controller = new ControllerBuilder(host, 'podset')
      .for(PodSets, { predicates: [generationChanged()] })
      .owns(Pods)
      .watches(ConfigMaps, (cm) => ({ namespace: cm.metadata.namespace, name: cm.metadata.labels?.set ?? 'none' }))
      .withEventFilter({ create: (o) => !o.metadata.labels?.ignore })
      .withOptions({ maxConcurrentReconciles: 2 })
      .complete(async (req) => {
        seen.push(req);
      });
    assert.deepEqual(host.runnables, [controller]);
    const stop = new AbortController();
    const running = controller.start(stop.signal);

    const sets = host.informers.get('PodSet') as FakeInformer;
    const pods = host.informers.get('Pod') as FakeInformer;
    const cms = host.informers.get('ConfigMap') as FakeInformer;
    sets.add(obj('s1'));
    await waitFor(() => seen.length === 1, 'for() add');
    sets.update(obj('s1', { generation: 1, resourceVersion: '2' })); // status only: filtered
    pods.add(owned('p1', [ref({ name: 's2' })]));
    await waitFor(() => seen.length === 2, 'owns() add');
    cms.add(obj('cm', { labels: { set: 's3' } }));
    await waitFor(() => seen.length === 3, 'watches() add');
    cms.add(obj('cm2', { labels: { set: 's4', ignore: 'yes' } })); // event filter
    pods.delete(owned('p1', [ref({ name: 's5' })]));
    await waitFor(() => seen.length === 4, 'owns() delete');
    assert.deepEqual(
      seen.map((r) => r.name),
      ['s1', 's2', 's3', 's5'],
    );
    stop.abort();
    await running;
  });

  it('maps both the old and the new owner when an owner reference moves', async () => {
    const host = new FakeHost();
    const seen: string[] = [];
    const c = new ControllerBuilder(host, 'moves')
      .for(PodSets)
      .owns(Pods)
      .complete(async (r) => {
        seen.push(r.name);
      });
    const stop = new AbortController();
    const running = c.start(stop.signal);
    const pods = host.informers.get('Pod') as FakeInformer;
    pods.store.set('default/p', owned('p', [ref({ name: 'old' })]));
    pods.update({
      ...owned('p', [ref({ name: 'new' })]),
      metadata: { ...owned('p', [ref({ name: 'new' })]).metadata, resourceVersion: '2' },
    });
    await waitFor(() => seen.length === 2, 'both owners');
    assert.deepEqual(seen.sort(), ['new', 'old']);
    stop.abort();
    await running;
  });

  it('rejects misuse', () => {
    const host = new FakeHost();
    assert.throws(() => new ControllerBuilder(host, 'Bad Name'), /DNS-1123/);
    assert.throws(() => new ControllerBuilder(host, 'x').complete(async () => {}), /nothing to watch/);
    assert.throws(() => new ControllerBuilder(host, 'x').for(Pods).for(Pods), /twice/);
    assert.throws(() => new ControllerBuilder(host, 'y').owns(Pods).complete(async () => {}), /needs for/);
    new ControllerBuilder(host, 'z').for(Pods).complete(async () => {});
    assert.throws(() => new ControllerBuilder(host, 'z').for(Pods).complete(async () => {}), /already used/);
  });
});
