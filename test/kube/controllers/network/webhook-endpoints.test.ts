// An admission webhook addressed by Service, served by a pod, reached through the Endpoints the
// Endpoints controller writes — nothing hand-written. The pod runs with hostNetwork on the
// simulated node whose InternalIP is 127.0.0.1, so its podIP is that loopback address (as kube
// gives hostNetwork pods their node's IP); the webhook server of this test process listens there
// on the container port the pod declares, standing in for the pod's process.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, eventually, type TestCluster } from '../../../helpers/control-plane.ts';
import { api, patchReply, pod, registerHooks, startHookServer, type HookServer } from '../../admission/helpers.ts';

/** eventually, typed for checks that answer a value or nothing yet. */
const until = <T>(check: () => Promise<T | undefined | false>, opts: { what?: string } = {}): Promise<T> =>
  eventually(check, opts) as Promise<T>;

let cp: TestCluster;
let hooks: HookServer;

before(async () => {
  cp = await startTestCluster({ nodes: 2 });
  hooks = await startHookServer(() => patchReply([{ op: 'add', path: '/metadata/labels/via', value: 'endpoints' }]));
});
after(async () => {
  await hooks?.close();
  await cp?.stop();
});

interface Subset {
  addresses?: Array<{ ip: string }>;
  notReadyAddresses?: Array<{ ip: string }>;
  ports?: Array<{ name: string; port: number }>;
}

test('a webhook Service backed by a ready pod is dialled at the address the controller wrote', async () => {
  const nodes = (await api(cp, 'GET', '/api/v1/nodes')).body as {
    items: Array<{ metadata: { name: string }; status: { addresses: Array<{ type: string; address: string }> } }>;
  };
  const loopbackNode = nodes.items.find((n) =>
    n.status.addresses.some((a) => a.type === 'InternalIP' && a.address === '127.0.0.1'),
  );
  assert.ok(loopbackNode, 'a simulated node has InternalIP 127.0.0.1');

  assert.equal((await api(cp, 'POST', '/api/v1/namespaces', { metadata: { name: 'webhooks' } })).status, 201);
  // The serving certificate names hooks.webhooks.svc: the Service must be called that.
  const svc = await api(cp, 'POST', '/api/v1/namespaces/webhooks/services', {
    metadata: { name: 'hooks' },
    spec: { selector: { app: 'hooks' }, ports: [{ name: 'https', port: 443, targetPort: 'https' }] },
  });
  assert.equal(svc.status, 201, JSON.stringify(svc.body));
  const server = await api(cp, 'POST', '/api/v1/namespaces/webhooks/pods', {
    metadata: { name: 'hooks-0', labels: { app: 'hooks' } },
    spec: {
      hostNetwork: true,
      nodeName: loopbackNode.metadata.name,
      containers: [{ name: 'server', image: 'hooks', ports: [{ name: 'https', containerPort: hooks.port }] }],
    },
  });
  assert.equal(server.status, 201, JSON.stringify(server.body));

  const subsets = await until(
    async () => {
      const ep = (await api(cp, 'GET', '/api/v1/namespaces/webhooks/endpoints/hooks')).body as { subsets?: Subset[] };
      return ep.subsets?.[0]?.addresses?.length ? ep.subsets : undefined;
    },
    { what: 'the hooks Endpoints list the pod' },
  );
  assert.deepEqual(
    subsets.map((s) => ({ ips: s.addresses?.map((a) => a.ip), ports: s.ports })),
    [{ ips: ['127.0.0.1'], ports: [{ name: 'https', port: hooks.port, protocol: 'TCP' }] }],
  );

  await registerHooks(cp, 'mutating', 'via-endpoints', [
    {
      name: 'endpoints.example.com',
      clientConfig: {
        service: { namespace: 'webhooks', name: 'hooks', path: '/mutate', port: 443 },
        caBundle: hooks.caBundle,
      },
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'default' } },
    },
  ]);
  const created = await api(cp, 'POST', '/api/v1/namespaces/default/pods', pod());
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal((created.body.metadata as { labels?: Record<string, string> }).labels?.via, 'endpoints');
  assert.equal(hooks.requests.at(-1)?.path, '/mutate');

  // The pod's readiness fails (the prober's write): its address leaves `addresses`, and the call
  // finds no endpoint.
  const current = (await api(cp, 'GET', '/api/v1/namespaces/webhooks/pods/hooks-0')).body as {
    status: { conditions: Array<{ type: string; status: string }> };
  };
  const conditions = current.status.conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' } : c));
  const patched = await api(
    cp,
    'PATCH',
    '/api/v1/namespaces/webhooks/pods/hooks-0/status',
    { status: { conditions } },
    'application/merge-patch+json',
  );
  assert.equal(patched.status, 200);
  await until(async () => {
    const ep = (await api(cp, 'GET', '/api/v1/namespaces/webhooks/endpoints/hooks')).body as { subsets?: Subset[] };
    return ep.subsets?.[0]?.notReadyAddresses?.[0]?.ip === '127.0.0.1';
  });
  const refused = await api(cp, 'POST', '/api/v1/namespaces/default/pods', pod());
  assert.equal(refused.status, 500);
  assert.match(String(refused.body.message), /no endpoints available for service "hooks"/);
});
