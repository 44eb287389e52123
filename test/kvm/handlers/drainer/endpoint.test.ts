// The drainer controller's endpoint handler: the pure desired/patch functions as tables, then the
// handler against an embedded control plane (Services, Endpoints, and a running master pod whose
// IP must outlive its deletion until its VM stopped).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Endpoints, Namespaces, Pods, Services, isConflict } from '../../../../src/runtime/index.ts';
import type { KubeClient } from '../../../../src/runtime/index.ts';
import {
  desiredIps,
  endpointHandler,
  endpointsDeletePatch,
  endpointsObject,
  endpointsUpdatePatch,
  portsFromService,
} from '../../../../src/kvm/handlers/drainer/endpoint.ts';
import type {
  EndpointAddress,
  EndpointsObject,
  EndpointsState,
} from '../../../../src/kvm/handlers/drainer/endpoint.ts';
import type { Pod } from '../../../../src/kvm/pods.ts';
import { eventually, startTestCluster } from '../../../helpers/control-plane.ts';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import { clientOf, recordingContext, testDeps } from '../../helpers.ts';
import { deleteAndGet, nodePod, release, runNodePod } from './fixtures.ts';

const NS = 'abc12';
const API = [
  { name: 'etcd', port: 2379, protocol: 'TCP' },
  { name: 'api', port: 443, protocol: 'TCP' },
];

type SubsetExtra = { notReadyAddresses?: EndpointAddress[] };

function existing(ips: string[], extra: SubsetExtra = {}): EndpointsObject {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'worker', namespace: NS, resourceVersion: '7', labels: { keep: 'me' } },
    subsets: [{ ...(ips.length ? { addresses: ips.map((ip) => ({ ip })) } : {}), ports: API, ...extra }],
  };
}

function current(ips: string[], extra: SubsetExtra = {}): EndpointsState {
  return { namespace: NS, name: 'worker', ips, ports: API, existing: existing(ips, extra) };
}

const missing: EndpointsState = { namespace: NS, name: 'worker', ips: [] };
const want = (ips: string[], ports: EndpointsState['ports'] = API): EndpointsState => ({
  namespace: NS,
  name: 'worker',
  ips,
  ...(ports ? { ports } : {}),
});

describe('endpoint handler: desiredIps', () => {
  const cases = [
    { name: 'a ready master is listed', service: 'master', ready: true, want: ['10.0.0.1'] },
    {
      name: 'a master is listed before it is ready (it serves the API)',
      service: 'master',
      ready: false,
      want: ['10.0.0.1'],
    },
    { name: 'a ready worker is listed', service: 'worker', ready: true, want: ['10.0.0.1'] },
    { name: 'a worker that is not ready adds nothing', service: 'worker', ready: false, want: [] },
  ];
  for (const tc of cases) it(tc.name, () => assert.deepEqual(desiredIps(tc.service, '10.0.0.1', tc.ready), tc.want));
});

describe('endpoint handler: update patch', () => {
  const cases: { name: string; current: EndpointsState; desired: EndpointsState; want: string }[] = [
    { name: 'no Endpoints: create with the IP', current: missing, desired: want(['1.1.1.1']), want: 'create 1.1.1.1' },
    { name: 'no Endpoints and a not-ready worker: nothing', current: missing, desired: want([]), want: 'none' },
    {
      name: 'no Endpoints and no Service: create without ports',
      current: missing,
      desired: want(['1.1.1.1'], undefined),
      want: 'create 1.1.1.1',
    },
    {
      name: 'another IP listed: update to the union',
      current: current(['2.2.2.2']),
      desired: want(['1.1.1.1']),
      want: 'update 2.2.2.2,1.1.1.1',
    },
    {
      name: 'the IP is listed: nothing',
      current: current(['1.1.1.1', '2.2.2.2']),
      desired: want(['1.1.1.1']),
      want: 'none',
    },
    {
      name: 'a not-ready worker listed before is never removed on update',
      current: current(['1.1.1.1']),
      desired: want([]),
      want: 'none',
    },
    {
      name: 'Endpoints without ready addresses: update, not create',
      current: current([], { notReadyAddresses: [{ ip: '3.3.3.3' }] }),
      desired: want(['1.1.1.1']),
      want: 'update 1.1.1.1',
    },
    {
      name: 'the Service ports changed: update the ports',
      current: current(['1.1.1.1']),
      desired: want(['1.1.1.1'], [{ name: 'api', port: 6443, protocol: 'TCP' }]),
      want: 'update 1.1.1.1',
    },
    {
      name: 'the Service is gone: the ports stay as they are',
      current: current(['2.2.2.2']),
      desired: want(['1.1.1.1'], undefined),
      want: 'update 2.2.2.2,1.1.1.1',
    },
    {
      name: 'ports in another order are the same ports',
      current: current(['1.1.1.1']),
      desired: want(['1.1.1.1'], [...API].reverse()),
      want: 'none',
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const p = endpointsUpdatePatch(tc.current, tc.desired);
      assert.equal(p.delete, undefined);
      const got = p.create ? `create ${p.create.ips}` : p.update ? `update ${p.update.ips}` : 'none';
      assert.equal(got, tc.want);
      if (p.update) assert.deepEqual(p.update.ports, tc.desired.ports ?? tc.current.ports);
      if (p.update) assert.equal(p.update.existing, tc.current.existing);
    });
  }
});

describe('endpoint handler: delete patch', () => {
  const cases: { name: string; current: EndpointsState; ip: string; want: string }[] = [
    { name: 'removes only this IP', current: current(['1.1.1.1', '2.2.2.2']), ip: '1.1.1.1', want: 'update 2.2.2.2' },
    { name: 'the last IP: delete the Endpoints', current: current(['1.1.1.1']), ip: '1.1.1.1', want: 'delete' },
    {
      name: 'the last ready IP with notReadyAddresses left: update, keep them',
      current: current(['1.1.1.1'], { notReadyAddresses: [{ ip: '3.3.3.3' }] }),
      ip: '1.1.1.1',
      want: 'update ',
    },
    { name: 'IP not listed: nothing', current: current(['2.2.2.2']), ip: '1.1.1.1', want: 'none' },
    { name: 'no Endpoints: nothing', current: missing, ip: '1.1.1.1', want: 'none' },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const p = endpointsDeletePatch(tc.current, tc.ip);
      assert.equal(p.create, undefined);
      const got = p.delete ? 'delete' : p.update ? `update ${p.update.ips}` : 'none';
      assert.equal(got, tc.want);
    });
  }
});

describe('endpoint handler: the written object', () => {
  it('keeps metadata, notReadyAddresses and address details; one subset with the ports', () => {
    const cur = current(['2.2.2.2'], { notReadyAddresses: [{ ip: '3.3.3.3' }] });
    cur.existing!.subsets![0].addresses = [{ ip: '2.2.2.2', nodeName: 'n1' }];
    const obj = endpointsObject({ ...cur, ips: ['2.2.2.2', '1.1.1.1'] });
    assert.equal(obj.metadata.resourceVersion, '7');
    assert.deepEqual(obj.metadata.labels, { keep: 'me' });
    assert.deepEqual(obj.subsets, [
      {
        addresses: [{ ip: '2.2.2.2', nodeName: 'n1' }, { ip: '1.1.1.1' }],
        notReadyAddresses: [{ ip: '3.3.3.3' }],
        ports: API,
      },
    ]);
  });
  it('no address at all: no subsets', () => {
    assert.deepEqual(endpointsObject({ ...current([]), ips: [] }).subsets, []);
  });
  it('ports come from the Service with the protocol defaulted', () => {
    assert.deepEqual(portsFromService({ metadata: {}, spec: { ports: [{ name: 'http', port: 30010 }] } }), [
      { name: 'http', port: 30010, protocol: 'TCP' },
    ]);
    assert.equal(portsFromService(undefined), undefined);
  });
});

describe('endpoint handler against a control plane', { timeout: 120_000 }, () => {
  let cp: TestCluster;
  let client: KubeClient;
  const handler = () => endpointHandler(testDeps(client));
  const ips = async (name: string): Promise<string[] | undefined> => {
    try {
      const ep = await client.get<EndpointsObject>(Endpoints, name, NS);
      return (ep.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
    } catch {
      return undefined;
    }
  };

  before(async () => {
    cp = await startTestCluster({ nodes: 1 });
    client = clientOf(cp);
    await client.create(Namespaces, { metadata: { name: NS } });
    await client.create(Services, { metadata: { name: 'master', namespace: NS }, spec: { ports: API } });
    await client.create(Services, {
      metadata: { name: 'worker', namespace: NS },
      spec: { type: 'NodePort', ports: [{ name: 'http', port: 30010, protocol: 'TCP' }] },
    });
  });
  after(async () => {
    client?.close();
    await cp?.stop();
  });

  it('no IP reported yet: cancels itself and writes nothing', async () => {
    const ctx = recordingContext('update');
    await handler().ensureCreated(nodePod({ name: 'master-m1-x', service: 'master' }), ctx);
    assert.ok(ctx.flags.handlerCanceled);
    assert.equal(ctx.flags.reconciliationCanceled, undefined);
    assert.equal(await ips('master'), undefined);
  });

  it('workers: added once ready, as a union; a not-ready worker keeps its IP; removed at once on delete', async () => {
    const h = handler();
    await h.ensureCreated(nodePod({ name: 'worker-w1-a', ip: '10.1.0.1' }), recordingContext());
    assert.equal(await ips('worker'), undefined, 'a not-ready worker creates nothing');
    await h.ensureCreated(nodePod({ name: 'worker-w1-a', ip: '10.1.0.1', ready: true }), recordingContext());
    await h.ensureCreated(nodePod({ name: 'worker-w2-a', ip: '10.1.0.2', ready: true }), recordingContext());
    assert.deepEqual(await ips('worker'), ['10.1.0.1', '10.1.0.2']);
    const ep = await client.get<EndpointsObject>(Endpoints, 'worker', NS);
    assert.deepEqual(ep.subsets?.[0].ports, [{ name: 'http', port: 30010, protocol: 'TCP' }]);

    await h.ensureCreated(nodePod({ name: 'worker-w1-a', ip: '10.1.0.1', ready: false }), recordingContext());
    assert.deepEqual(await ips('worker'), ['10.1.0.1', '10.1.0.2'], 'update never removes');

    // A worker's IP goes at once on delete, running or not: traffic stops before the drain.
    const ctx = recordingContext('delete');
    await h.ensureDeleted(nodePod({ name: 'worker-w1-a', ip: '10.1.0.1', ready: true, deleting: true }), ctx);
    assert.deepEqual(ctx.flags, {});
    assert.deepEqual(await ips('worker'), ['10.1.0.2']);
    await h.ensureDeleted(nodePod({ name: 'worker-w2-a', ip: '10.1.0.2', deleting: true }), recordingContext('delete'));
    assert.equal(await ips('worker'), undefined, 'no address left: Endpoints deleted');
  });

  it('a concurrent write makes the update fail with a Conflict (the controller retries)', async () => {
    const h = handler();
    await h.ensureCreated(nodePod({ name: 'worker-w3-a', ip: '10.1.0.3', ready: true }), recordingContext());
    const racing = Object.create(client) as KubeClient;
    racing.update = async (type, obj, opts) => {
      await client.patch(Endpoints, 'worker', NS, { metadata: { labels: { touched: 'yes' } } }, 'merge');
      return client.update(type, obj, opts);
    };
    const pod = nodePod({ name: 'worker-w4-a', ip: '10.1.0.4', ready: true });
    await assert.rejects(endpointHandler(testDeps(racing)).ensureCreated(pod, recordingContext()), isConflict);
    await h.ensureCreated(pod, recordingContext());
    assert.deepEqual(await ips('worker'), ['10.1.0.3', '10.1.0.4']);
    const ep = await client.get<EndpointsObject>(Endpoints, 'worker', NS);
    assert.equal(ep.metadata.labels?.touched, 'yes', 'the other writer’s change is kept');
  });

  it('a master keeps its IP until its VM stopped, without stopping the chain', async () => {
    const h = handler();
    await runNodePod(client, { name: 'master-m1-a', service: 'master', ip: '10.0.0.1', nodeName: 'node-1' });
    await h.ensureCreated(nodePod({ name: 'master-m1-b', service: 'master', ip: '10.0.0.2' }), recordingContext());
    const pod = { ...(await client.get<Pod>(Pods, 'master-m1-a', NS)) };
    await h.ensureCreated(pod, recordingContext());
    assert.deepEqual(await ips('master'), ['10.0.0.2', '10.0.0.1']);
    const ep = await client.get<EndpointsObject>(Endpoints, 'master', NS);
    assert.deepEqual(ep.subsets?.[0].ports, API);

    const deleting = await deleteAndGet(client, 'master-m1-a', NS);
    assert.ok(deleting.metadata.deletionTimestamp);
    const ctx = recordingContext('delete');
    await h.ensureDeleted(deleting, ctx);
    assert.ok(ctx.flags.handlerCanceled, 'handler cancelled');
    assert.ok(ctx.flags.finalizerKept, 'finalizer kept');
    assert.equal(ctx.flags.reconciliationCanceled, undefined, 'the pod handler must still run');
    assert.deepEqual(await ips('master'), ['10.0.0.2', '10.0.0.1']);

    await client.delete(Pods, 'master-m1-a', NS, { gracePeriodSeconds: 0 });
    await eventually(
      async () => {
        const p = await client.get<Pod>(Pods, 'master-m1-a', NS);
        return p.status?.containerStatuses?.every((c) => c.state?.terminated);
      },
      { what: 'master containers terminated' },
    );
    const done = recordingContext('delete');
    await h.ensureDeleted(deleting, done);
    assert.deepEqual(done.flags, {});
    assert.deepEqual(await ips('master'), ['10.0.0.2']);
    await release(client, 'master-m1-a', NS);
  });

  it('a master pod already gone: its IP is removed', async () => {
    const ctx = recordingContext('delete');
    await handler().ensureDeleted(
      nodePod({ name: 'master-m1-b', service: 'master', ip: '10.0.0.2', deleting: true }),
      ctx,
    );
    assert.deepEqual(ctx.flags, {});
    assert.equal(await ips('master'), undefined);
  });
});
