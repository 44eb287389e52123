// kubectl 1.32+/1.33 send typed `create` bodies as protobuf; they must work end to end and store
// what a JSON client would have stored.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import { envelope, meta, msg } from './build.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- kubectl's JSON output, probed field by field

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster();
});
after(async () => {
  await cp?.stop();
});

async function run(args: string[], version = '1.33'): Promise<string> {
  const r = await kubectl(cp.kubeconfigPath, args, { version });
  assert.equal(r.code, 0, `kubectl ${version} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function get(...args: string[]): Promise<Obj> {
  return JSON.parse(await run(['get', ...args, '-o', 'json'])) as Obj;
}

test('create namespace, configmap, secret, serviceaccount', async () => {
  await run(['create', 'namespace', 'pb']);
  assert.equal((await get('namespace', 'pb')).status.phase, 'Active');

  await run(['create', 'configmap', 'cm', '-n', 'pb', '--from-literal=a=1', '--from-literal=b=two words']);
  assert.deepEqual((await get('configmap', 'cm', '-n', 'pb')).data, { a: '1', b: 'two words' });

  await run(['create', 'secret', 'generic', 'sec', '-n', 'pb', '--from-literal=password=pä$$:\n']);
  const secret = await get('secret', 'sec', '-n', 'pb');
  assert.equal(secret.type, 'Opaque');
  assert.equal(Buffer.from(secret.data.password, 'base64').toString('utf8'), 'pä$$:\n');

  await run(['create', 'serviceaccount', 'robot', '-n', 'pb']);
  assert.equal((await get('serviceaccount', 'robot', '-n', 'pb')).metadata.name, 'robot');
});

test('create deployment with image, replicas and port', async () => {
  await run(['create', 'deployment', 'web', '-n', 'pb', '--image=nginx:1.27', '--replicas=3', '--port=8080']);
  const d = await get('deployment', 'web', '-n', 'pb');
  assert.equal(d.spec.replicas, 3);
  assert.deepEqual(d.spec.selector, { matchLabels: { app: 'web' } });
  assert.deepEqual(d.spec.template.metadata.labels, { app: 'web' });
  const [c] = d.spec.template.spec.containers;
  assert.equal(c.name, 'nginx');
  assert.equal(c.image, 'nginx:1.27');
  assert.deepEqual(c.ports, [{ containerPort: 8080, protocol: 'TCP' }]);

  await run(['create', 'deployment', 'idle', '-n', 'pb', '--image=nginx', '--replicas=0']);
  assert.equal((await get('deployment', 'idle', '-n', 'pb')).spec.replicas, 0);
});

test('create service clusterip and job', async () => {
  await run(['create', 'service', 'clusterip', 'web', '-n', 'pb', '--tcp=80:8080']);
  const svc = await get('service', 'web', '-n', 'pb');
  assert.equal(svc.spec.type, 'ClusterIP');
  assert.deepEqual(svc.spec.selector, { app: 'web' });
  assert.deepEqual(svc.spec.ports, [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }]);

  await run(['create', 'job', 'once', '-n', 'pb', '--image=busybox', '--', 'echo', 'hi']);
  const job = await get('job', 'once', '-n', 'pb');
  assert.deepEqual(job.spec.template.spec.containers[0].command, ['echo', 'hi']);
  assert.equal(job.spec.template.spec.restartPolicy, 'Never');
});

test('create role, rolebinding, clusterrole, clusterrolebinding', async () => {
  await run([
    'create',
    'role',
    'reader',
    '-n',
    'pb',
    '--verb=get',
    '--verb=list',
    '--resource=pods',
    '--resource=deployments.apps',
  ]);
  assert.deepEqual((await get('role', 'reader', '-n', 'pb')).rules, [
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'] },
  ]);

  await run([
    'create',
    'rolebinding',
    'read',
    '-n',
    'pb',
    '--role=reader',
    '--user=alice',
    '--serviceaccount=pb:robot',
  ]);
  const rb = await get('rolebinding', 'read', '-n', 'pb');
  assert.deepEqual(rb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' });
  assert.deepEqual(rb.subjects, [
    { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' },
    { kind: 'ServiceAccount', name: 'robot', namespace: 'pb' },
  ]);

  await run(['create', 'clusterrole', 'logs', '--verb=get', '--non-resource-url=/logs/*']);
  assert.deepEqual((await get('clusterrole', 'logs')).rules, [{ nonResourceURLs: ['/logs/*'], verbs: ['get'] }]);
  await run(['create', 'clusterrolebinding', 'logs', '--clusterrole=logs', '--group=ops']);
  assert.deepEqual((await get('clusterrolebinding', 'logs')).subjects, [
    { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'ops' },
  ]);
});

test('create quota, priorityclass, pdb, ingress', async () => {
  await run(['create', 'quota', 'q', '-n', 'pb', '--hard=pods=2,requests.cpu=500m']);
  assert.deepEqual((await get('resourcequota', 'q', '-n', 'pb')).spec.hard, { pods: '2', 'requests.cpu': '500m' });

  await run(['create', 'priorityclass', 'high', '--value=100', '--description=important']);
  const pc = await get('priorityclass', 'high');
  assert.equal(pc.value, 100);
  assert.equal(pc.description, 'important');

  await run(['create', 'pdb', 'pdb', '-n', 'pb', '--selector=app=x', '--min-available=1']);
  const pdb = await get('pdb', 'pdb', '-n', 'pb');
  assert.equal(pdb.spec.minAvailable, 1);
  assert.deepEqual(pdb.spec.selector, { matchLabels: { app: 'x' } });

  await run(['create', 'ingress', 'ing', '-n', 'pb', '--class=nginx', '--rule=foo.com/api*=web:80,tls=foo-tls']);
  const ing = await get('ingress', 'ing', '-n', 'pb');
  assert.equal(ing.spec.ingressClassName, 'nginx');
  assert.deepEqual(ing.spec.tls, [{ hosts: ['foo.com'], secretName: 'foo-tls' }]);
  assert.deepEqual(ing.spec.rules, [
    {
      host: 'foo.com',
      http: {
        paths: [{ path: '/api', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
      },
    },
  ]);
});

test('kubectl 1.32 sends protobuf too', async () => {
  await run(['create', 'configmap', 'from-132', '-n', 'pb', '--from-literal=k=v'], '1.32');
  await run(['create', 'deployment', 'd132', '-n', 'pb', '--image=nginx', '--replicas=2'], '1.32');
  assert.deepEqual((await get('configmap', 'from-132', '-n', 'pb')).data, { k: 'v' });
  assert.equal((await get('deployment', 'd132', '-n', 'pb')).spec.replicas, 2);
});

function post(path: string, body: Buffer): Promise<{ code: number; type: string; body: Obj }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${cp.url}${path}`,
      {
        method: 'POST',
        ca: cp.caPem,
        headers: {
          Authorization: `Bearer ${cp.token}`,
          'Content-Type': 'application/vnd.kubernetes.protobuf',
          Accept: 'application/vnd.kubernetes.protobuf, application/json',
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () =>
          resolve({
            code: res.statusCode ?? 0,
            type: String(res.headers['content-type']),
            body: JSON.parse(text) as Obj,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('raw protobuf POSTs: JSON answers, Strict unknown fields, malformed bodies', async () => {
  const ok = await post('/api/v1/namespaces/pb/configmaps', envelope('v1', 'ConfigMap', msg([1, meta('raw')])));
  assert.equal(ok.code, 201);
  assert.equal(ok.type, 'application/json');
  assert.equal(ok.body.metadata.name, 'raw');

  const unknown = envelope('v1', 'ConfigMap', msg([1, meta('strict')], [9, 'x']));
  const strict = await post('/api/v1/namespaces/pb/configmaps?fieldValidation=Strict', unknown);
  assert.equal(strict.code, 400);
  assert.match(strict.body.message, /strict decoding error: unknown field/);
  assert.equal((await post('/api/v1/namespaces/pb/configmaps?fieldValidation=Ignore', unknown)).code, 201);

  const bad = await post('/api/v1/namespaces/pb/configmaps', Buffer.from('k8s\0\x12\xff\xff\xff\x0f', 'latin1'));
  assert.equal(bad.code, 400);
  assert.equal(bad.body.reason, 'BadRequest');

  const kindMismatch = await post('/api/v1/namespaces/pb/configmaps', envelope('v1', 'Secret', msg([1, meta('s')])));
  assert.equal(kindMismatch.code, 400);
});
