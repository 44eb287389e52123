// The Endpoints and EndpointSlice controllers against a live control plane with simulated nodes
// (kube's pkg/controller/endpoint/endpoints_controller.go, pkg/controller/endpointslice and
// staging/src/k8s.io/endpointslice/reconciler.go). Pods get their IPs and Ready condition from
// the simulated kubelets; a failing readiness probe is played by writing the Ready condition
// through pods/status, as the kubelet's prober would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, eventually, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import { api } from '../../admission/helpers.ts';

/** eventually, typed for checks that answer a value or nothing yet. */
const until = <T>(check: () => Promise<T | undefined | false>, opts: { what?: string } = {}): Promise<T> =>
  eventually(check, opts) as Promise<T>;

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> };
interface Address {
  ip: string;
  nodeName?: string;
  hostname?: string;
  targetRef?: { kind: string; namespace: string; name: string; uid: string };
}
interface Subset {
  addresses?: Address[];
  notReadyAddresses?: Address[];
  ports?: Array<{ name: string; port: number; protocol: string }>;
}
interface SliceEndpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  nodeName?: string;
  targetRef?: { kind: string; name: string; uid: string };
}
interface Slice {
  metadata: { name: string; generateName?: string; labels: Record<string, string>; ownerReferences?: Obj[] };
  addressType: string;
  endpoints: SliceEndpoint[] | null;
  ports: Array<{ name: string; port: number; protocol: string }> | null;
}

let cp: TestCluster;
const NS = 'net';

before(async () => {
  cp = await startTestCluster({ nodes: 2 });
  assert.equal((await api(cp, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
});
after(() => cp?.stop());

async function create(path: string, body: unknown): Promise<Obj> {
  const r = await api(cp, 'POST', path, body);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body as Obj;
}

function service(name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}): Promise<Obj> {
  return create(`/api/v1/namespaces/${NS}/services`, { metadata: { name, labels }, spec });
}

function webPod(name: string, app: string, ports = [{ name: 'http', containerPort: 8080 }], extra = {}): Promise<Obj> {
  return create(`/api/v1/namespaces/${NS}/pods`, {
    metadata: { name, labels: { app } },
    spec: { containers: [{ name: 'web', image: 'nginx', ports }], ...extra },
  });
}

async function endpoints(name: string): Promise<(Obj & { subsets?: Subset[] }) | undefined> {
  const r = await api(cp, 'GET', `/api/v1/namespaces/${NS}/endpoints/${name}`);
  return r.status === 200 ? (r.body as Obj & { subsets?: Subset[] }) : undefined;
}

async function slices(service: string): Promise<Slice[]> {
  const r = await api(
    cp,
    'GET',
    `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices?labelSelector=kubernetes.io/service-name=${service}`,
  );
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { items: Slice[] }).items;
}

async function podOf(name: string): Promise<Obj & { status: { podIP?: string; conditions?: Obj[] } }> {
  return (await api(cp, 'GET', `/api/v1/namespaces/${NS}/pods/${name}`)).body as Obj & {
    status: { podIP?: string; conditions?: Obj[] };
  };
}

const readyIps = (ep: { subsets?: Subset[] } | undefined): string[] =>
  (ep?.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip)).sort();
const notReadyIps = (ep: { subsets?: Subset[] } | undefined): string[] =>
  (ep?.subsets ?? []).flatMap((s) => (s.notReadyAddresses ?? []).map((a) => a.ip)).sort();

async function ipOf(name: string): Promise<string> {
  return until(async () => (await podOf(name)).status.podIP, { what: `pod ${name} IP` });
}

let probes = 0;
/**
 * Resolves once the Endpoints controller has handled every change made so far: it works through
 * its queue in order, so the Endpoints of a Service created now appear after those changes.
 */
async function caughtUp(): Promise<void> {
  const name = `probe-${++probes}`;
  await service(name, { selector: { app: 'none' }, ports: [{ port: 1 }] });
  await until(() => endpoints(name), { what: `${name} Endpoints` });
}

/** What the kubelet's prober writes when a readiness probe starts failing (or passes again). */
async function setReady(name: string, ready: boolean): Promise<void> {
  const pod = await podOf(name);
  const status = ready ? 'True' : 'False';
  const conditions = (pod.status.conditions ?? []).map((c) =>
    c.type === 'Ready' || c.type === 'ContainersReady'
      ? { ...c, status, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }
      : c,
  );
  const r = await api(
    cp,
    'PATCH',
    `/api/v1/namespaces/${NS}/pods/${name}/status`,
    { status: { conditions } },
    'application/merge-patch+json',
  );
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

describe('Endpoints', () => {
  test('a Service lists its ready pods with targetPorts resolved, labels and the trigger time', async () => {
    await service(
      'web',
      {
        selector: { app: 'web' },
        ports: [
          { name: 'http', port: 80, targetPort: 'http' },
          { name: 'metrics', port: 9000, targetPort: 9090 },
        ],
      },
      { tier: 'front' },
    );
    const [a, b] = [await webPod('web-a', 'web'), await webPod('web-b', 'web')];
    const ips = [await ipOf('web-a'), await ipOf('web-b')];
    const ep = await until(
      async () => {
        const e = await endpoints('web');
        return readyIps(e).length === 2 ? e : undefined;
      },
      { what: 'both pods in the Endpoints' },
    );
    assert.deepEqual(readyIps(ep), [...ips].sort());
    assert.equal(ep!.subsets!.length, 1, 'both pods offer the same ports: one subset');
    const [subset] = ep!.subsets!;
    // The named targetPort resolves to the container port called "http".
    assert.deepEqual(subset.ports, [
      { name: 'http', port: 8080, protocol: 'TCP' },
      { name: 'metrics', port: 9090, protocol: 'TCP' },
    ]);
    const byName = new Map(subset.addresses!.map((x) => [x.targetRef!.name, x]));
    for (const p of [a, b]) {
      const address = byName.get(String(p.metadata.name))!;
      assert.deepEqual(address.targetRef, {
        kind: 'Pod',
        namespace: NS,
        name: p.metadata.name,
        uid: p.metadata.uid,
      });
      const scheduled = (await podOf(String(p.metadata.name))) as { spec?: { nodeName?: string } };
      assert.equal(address.nodeName, scheduled.spec?.nodeName);
      assert.match(String(address.nodeName), /^node-\d$/);
      assert.equal(address.hostname, undefined);
    }
    // kube copies the Service's labels (no managed-by label on Endpoints) and stamps the trigger time.
    assert.deepEqual(ep!.metadata.labels, { tier: 'front' });
    const annotations = ep!.metadata.annotations as Record<string, string>;
    assert.match(annotations['endpoints.kubernetes.io/last-change-trigger-time'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test('a pod that turns unready moves to notReadyAddresses, and back', async () => {
    const ip = await ipOf('web-a');
    await setReady('web-a', false);
    await until(async () => notReadyIps(await endpoints('web')).includes(ip), { what: 'web-a not ready' });
    const ep = await endpoints('web');
    assert.ok(!readyIps(ep).includes(ip));
    assert.equal(readyIps(ep).length, 1);
    await setReady('web-a', true);
    await until(async () => readyIps(await endpoints('web')).includes(ip), { what: 'web-a ready again' });
    assert.deepEqual(notReadyIps(await endpoints('web')), []);
  });

  test('nothing is rewritten when a pod change does not touch the Endpoints', async () => {
    const before = await endpoints('web');
    const r = await api(
      cp,
      'PATCH',
      `/api/v1/namespaces/${NS}/pods/web-b`,
      { metadata: { annotations: { touched: 'yes' } } },
      'application/merge-patch+json',
    );
    assert.equal(r.status, 200);
    await caughtUp();
    const after = await endpoints('web');
    assert.equal(after!.metadata.resourceVersion, before!.metadata.resourceVersion);
  });

  test('a pod without the named port is left out of that port only', async () => {
    await webPod('web-c', 'web', [{ name: 'other', containerPort: 7000 }]);
    const ip = await ipOf('web-c');
    const ep = await until(
      async () => {
        const e = await endpoints('web');
        return readyIps(e).includes(ip) ? e : undefined;
      },
      { what: 'web-c listed' },
    );
    const withC = ep!.subsets!.find((s) => s.addresses?.some((x) => x.ip === ip))!;
    assert.deepEqual(withC.ports, [{ name: 'metrics', port: 9090, protocol: 'TCP' }]);
    const http = ep!.subsets!.find((s) => s.ports?.some((p) => p.name === 'http'))!;
    assert.ok(!http.addresses!.some((x) => x.ip === ip));
    assert.equal(http.addresses!.length, 2);
  });

  test('a deleted pod drops out', async () => {
    const ip = await ipOf('web-c');
    assert.equal((await api(cp, 'DELETE', `/api/v1/namespaces/${NS}/pods/web-c`)).status, 200);
    await until(async () => !readyIps(await endpoints('web')).includes(ip), { what: 'web-c gone' });
    assert.equal((await endpoints('web'))!.subsets!.length, 1);
  });

  test('publishNotReadyAddresses lists unready pods as addresses', async () => {
    await service('all', {
      selector: { app: 'all' },
      publishNotReadyAddresses: true,
      ports: [{ port: 80, targetPort: 8080 }],
    });
    await webPod('all-a', 'all');
    const ip = await ipOf('all-a');
    await until(async () => readyIps(await endpoints('all')).includes(ip), { what: 'all-a listed' });
    await setReady('all-a', false);
    await caughtUp();
    assert.deepEqual(readyIps(await endpoints('all')), [ip]);
    assert.deepEqual(notReadyIps(await endpoints('all')), []);
  });

  test('a Service without a selector keeps its hand-written Endpoints', async () => {
    await service('manual', { ports: [{ port: 443, targetPort: 6443 }] });
    const written = await create(`/api/v1/namespaces/${NS}/endpoints`, {
      metadata: { name: 'manual' },
      subsets: [{ addresses: [{ ip: '192.0.2.1' }], ports: [{ port: 6443 }] }],
    });
    await webPod('manual-pod', 'manual');
    await ipOf('manual-pod');
    await service('later', { selector: { app: 'manual' }, ports: [{ port: 80 }] });
    await until(async () => readyIps(await endpoints('later')).length === 1, { what: 'later Endpoints' });
    await caughtUp();
    const now = await endpoints('manual');
    assert.equal(now!.metadata.resourceVersion, written.metadata.resourceVersion);
    assert.deepEqual(readyIps(now), ['192.0.2.1']);
    // The bootstrap `kubernetes` Service is the API server's: still pointing at it.
    const kube = (await api(cp, 'GET', '/api/v1/namespaces/default/endpoints/kubernetes')).body as {
      subsets: Subset[];
    };
    assert.equal(kube.subsets[0].ports![0].port, Number(new URL(cp.url).port));
  });

  test('Endpoints deleted by hand come back; a deleted Service takes them along', async () => {
    assert.equal((await api(cp, 'DELETE', `/api/v1/namespaces/${NS}/endpoints/later`)).status, 200);
    await until(async () => readyIps(await endpoints('later')).length === 1, { what: 'later Endpoints back' });
    assert.equal((await api(cp, 'DELETE', `/api/v1/namespaces/${NS}/services/later`)).status, 200);
    await until(async () => (await endpoints('later')) === undefined, { what: 'Endpoints deleted' });
    await until(async () => (await slices('later')).length === 0, { what: 'EndpointSlices deleted' });
  });

  test('a headless Service is labelled so', async () => {
    await service('headless', {
      clusterIP: 'None',
      selector: { app: 'web' },
      ports: [{ port: 80, targetPort: 'http' }],
    });
    const ep = await until(async () => {
      const e = await endpoints('headless');
      return readyIps(e).length === 2 ? e : undefined;
    });
    assert.deepEqual(ep!.metadata.labels, { 'service.kubernetes.io/headless': '' });
  });
});

describe('EndpointSlices', () => {
  test('mirror the Service with conditions, owner and labels', async () => {
    const ips = [await ipOf('web-a'), await ipOf('web-b')].sort();
    const [slice] = await until(
      async () => {
        const s = await slices('web');
        return s.length === 1 && s[0].endpoints?.length === 2 ? s : undefined;
      },
      { what: 'one slice with both pods' },
    );
    assert.match(slice.metadata.name, /^web-[a-z0-9]{5}$/);
    assert.equal(slice.metadata.generateName, 'web-');
    assert.deepEqual(slice.metadata.labels, {
      tier: 'front',
      'kubernetes.io/service-name': 'web',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    });
    const svc = (await api(cp, 'GET', `/api/v1/namespaces/${NS}/services/web`)).body as Obj;
    assert.deepEqual(slice.metadata.ownerReferences, [
      {
        apiVersion: 'v1',
        kind: 'Service',
        name: 'web',
        uid: svc.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.equal(slice.addressType, 'IPv4');
    assert.deepEqual(slice.ports, [
      { name: 'http', protocol: 'TCP', port: 8080 },
      { name: 'metrics', protocol: 'TCP', port: 9090 },
    ]);
    assert.deepEqual(slice.endpoints!.flatMap((e) => e.addresses).sort(), ips);
    for (const e of slice.endpoints!) {
      assert.deepEqual(e.conditions, { ready: true, serving: true, terminating: false });
      assert.equal(e.targetRef!.kind, 'Pod');
      assert.match(String(e.nodeName), /^node-\d$/);
    }
  });

  test('an unready pod stays in the slice with ready and serving false', async () => {
    const ip = await ipOf('web-b');
    await setReady('web-b', false);
    const e = await until(
      async () => {
        const found = (await slices('web')).flatMap((s) => s.endpoints ?? []).find((x) => x.addresses[0] === ip);
        return found && !found.conditions.ready ? found : undefined;
      },
      { what: 'web-b not ready in the slice' },
    );
    assert.deepEqual(e.conditions, { ready: false, serving: false, terminating: false });
    await setReady('web-b', true);
    await until(async () =>
      (await slices('web')).flatMap((s) => s.endpoints ?? []).some((x) => x.addresses[0] === ip && x.conditions.ready),
    );
  });

  test('a terminating pod leaves the Endpoints but stays in the slice as terminating', async () => {
    await service('slow', { selector: { app: 'slow' }, ports: [{ port: 80, targetPort: 8080 }] });
    await create(`/api/v1/namespaces/${NS}/pods`, {
      metadata: { name: 'slow-a', labels: { app: 'slow' } },
      spec: {
        terminationGracePeriodSeconds: 30,
        containers: [{ name: 'web', image: 'nginx', lifecycle: { preStop: { exec: { command: ['sleep', '30'] } } } }],
      },
    });
    const ip = await ipOf('slow-a');
    await until(async () => readyIps(await endpoints('slow')).includes(ip), { what: 'slow-a listed' });
    assert.equal((await api(cp, 'DELETE', `/api/v1/namespaces/${NS}/pods/slow-a`)).status, 200);
    await until(async () => readyIps(await endpoints('slow')).length === 0, { what: 'slow-a out of Endpoints' });
    assert.deepEqual(notReadyIps(await endpoints('slow')), []);
    const e = await until(
      async () => {
        const found = (await slices('slow')).flatMap((s) => s.endpoints ?? []).find((x) => x.addresses[0] === ip);
        return found?.conditions.terminating ? found : undefined;
      },
      { what: 'slow-a terminating in the slice' },
    );
    assert.deepEqual(e.conditions, { ready: false, serving: true, terminating: true });
    // Force it away so the cluster stops without waiting for the grace period.
    await api(cp, 'DELETE', `/api/v1/namespaces/${NS}/pods/slow-a`, { gracePeriodSeconds: 0 });
  });

  test('a Service without endpoints gets one placeholder slice', async () => {
    await service('empty', { selector: { app: 'nobody' }, ports: [{ port: 80 }] });
    const s = await until(
      async () => {
        const list = await slices('empty');
        return list.length === 1 ? list : undefined;
      },
      { what: 'placeholder slice' },
    );
    assert.deepEqual(s[0].endpoints ?? [], []);
    assert.deepEqual(s[0].ports ?? [], []);
  });

  test('a deleted slice is replaced', async () => {
    const [old] = await slices('web');
    assert.equal(
      (await api(cp, 'DELETE', `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices/${old.metadata.name}`))
        .status,
      200,
    );
    await until(
      async () => {
        const s = await slices('web');
        return s.length === 1 && s[0].metadata.name !== old.metadata.name && s[0].endpoints?.length === 2;
      },
      { what: 'a new slice with both pods' },
    );
  });
});

describe('kubectl 1.33', () => {
  test('get endpoints and get endpointslices show them', async () => {
    const ips = [await ipOf('web-a'), await ipOf('web-b')];
    const ep = await kubectl(cp.kubeconfigPath, ['get', 'endpoints', 'web', '-n', NS], { version: '1.33' });
    assert.equal(ep.code, 0, ep.stderr);
    const [header, row] = ep.stdout.trim().split('\n');
    assert.match(header, /^NAME\s+ENDPOINTS\s+AGE$/);
    // formatEndpoints (pkg/printers/internalversion/printers.go): ip:port per address and port, three at most.
    assert.match(row, /^web\s+\S+ \+ 1 more\.\.\.\s+\d+s$/);
    for (const ip of ips) assert.ok(row.includes(`${ip}:`), row);

    const es = await kubectl(
      cp.kubeconfigPath,
      ['get', 'endpointslices', '-n', NS, '-l', 'kubernetes.io/service-name=web'],
      {
        version: '1.33',
      },
    );
    assert.equal(es.code, 0, es.stderr);
    const lines = es.stdout.trim().split('\n');
    // printEndpointSlice: NAME ADDRESSTYPE PORTS ENDPOINTS AGE.
    assert.match(lines[0], /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/);
    assert.equal(lines.length, 2);
    const cells = lines[1].split(/\s+/);
    assert.match(cells[0], /^web-[a-z0-9]{5}$/);
    assert.equal(cells[1], 'IPv4');
    assert.equal(cells[2], '8080,9090');
    assert.deepEqual(cells[3].split(',').sort(), [...ips].sort());

    const empty = await kubectl(
      cp.kubeconfigPath,
      ['get', 'endpointslices', '-n', NS, '-l', 'kubernetes.io/service-name=empty'],
      {
        version: '1.33',
      },
    );
    assert.match(empty.stdout.trim().split('\n')[1], /^empty-[a-z0-9]{5}\s+IPv4\s+<unset>\s+<unset>\s+\d+s$/);
  });
});
