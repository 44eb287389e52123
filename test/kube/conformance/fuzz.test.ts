// Seeded request fuzzing: thousands of random or mutated requests must each get a JSON Status
// (4xx) or a success, never a 5xx, a hang or a dropped connection, and must leave untouched
// objects untouched. Set FUZZ_SEED to reproduce a run; the seed is printed on failure.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import { startTestCluster, eventually, type TestCluster } from '../../helpers/control-plane.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20240611);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);
const CONCURRENCY = 16;
const REQUEST_TIMEOUT_MS = 15_000;

/** mulberry32: small, fast and good enough to make runs reproducible. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
type Rng = ReturnType<typeof rng>;

interface Reply {
  status: number;
  contentType: string;
  body: string;
}

let cp: TestCluster;
let agent: Agent;

function send(
  method: string,
  path: string,
  body: Buffer | undefined,
  contentType: string | undefined,
  token = cp.token,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
    if (contentType) headers['Content-Type'] = contentType;
    if (body) headers['Content-Length'] = String(body.length);
    const req = request(`${cp.url}${path}`, { method, headers, agent, ca: cp.caPem }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`hang: no response in ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

const NAMESPACES = ['fuzz', 'fuzz', 'fuzz', 'default', 'missing-ns', 'Bad_NS', '', '..', '%2e%2e', 'a'.repeat(300)];
const NAMES = ['f1', 'f2', 'f3', 'f4', 'Bad_Name', '', 'x'.repeat(300), '%00', 'a%2Fb', '..', 'ünï'];
const NS_RESOURCES = [
  ['/api/v1', 'configmaps', 'ConfigMap', 'v1'],
  ['/api/v1', 'secrets', 'Secret', 'v1'],
  ['/api/v1', 'pods', 'Pod', 'v1'],
  ['/api/v1', 'services', 'Service', 'v1'],
  ['/api/v1', 'events', 'Event', 'v1'],
  ['/apis/apps/v1', 'deployments', 'Deployment', 'apps/v1'],
  ['/apis/coordination.k8s.io/v1', 'leases', 'Lease', 'coordination.k8s.io/v1'],
  ['/apis/example.com/v1', 'gadgets', 'Gadget', 'example.com/v1'],
  ['/api/v1', 'nosuchthings', 'Nope', 'v1'],
] as const;
const SUBRESOURCES = ['status', 'scale', 'binding', 'log', 'bogus', 'finalize'];
const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'multipart/form-data; boundary=x',
  '',
  ';;;',
];
const BAD_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  '',
  'x',
  [],
  {},
  [1, 'a', null],
  { a: { b: [] } },
  '\u0000',
  '\ud800',
];
// A fresh copy each time: mutations must never alias (and so loop) shared values.
const badValue = (r: Rng): unknown => structuredClone(r.pick(BAD_VALUES));
const QUERY: Array<[string, string[]]> = [
  [
    'labelSelector',
    [
      'a=b',
      'env in (a,b)',
      '!x',
      'a in (',
      '===',
      'a=b,c notin (d)',
      '%ZZ',
      'a'.repeat(70) + '=b',
      'x=' + 'y'.repeat(70),
    ],
  ],
  [
    'fieldSelector',
    [
      'metadata.name=f1',
      'metadata.name!=f1',
      'spec.nodeName=x',
      'data.a=1',
      '=',
      'metadata.name',
      ',',
      'status.phase==Running',
    ],
  ],
  ['limit', ['1', '0', '-1', 'abc', '99999999999999999999', '2.5']],
  ['continue', ['', 'abc', 'eyJydiI6MX0', '!!!', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTF9']],
  ['resourceVersion', ['0', '1', 'abc', '-5', '99999999999', '']],
  ['resourceVersionMatch', ['Exact', 'NotOlderThan', 'bogus', '']],
  ['dryRun', ['All', 'bogus', '', 'All,All']],
  ['fieldManager', ['fuzzer', 'm'.repeat(200), '', '\u0001']],
  ['force', ['true', 'false', 'yes', 'maybe', '2']],
  ['propagationPolicy', ['Background', 'Foreground', 'Orphan', 'Sideways']],
  ['gracePeriodSeconds', ['0', '-1', 'abc', '30']],
  ['timeoutSeconds', ['1', 'abc', '-1']],
  ['pretty', ['true', 'nope']],
  ['fieldValidation', ['Strict', 'Warn', 'Ignore', 'Loose']],
  ['allowWatchBookmarks', ['true', 'perhaps']],
  ['sendInitialEvents', ['true', 'false', 'xyz']],
  ['watch', ['maybe', 'yes', 'TRUE!', '2']],
  ['orphanDependents', ['true', 'nah']],
];

function template(kind: string, apiVersion: string, name: string): Record<string, unknown> {
  const metadata: Record<string, unknown> = { name, labels: { app: 'fuzz' } };
  switch (kind) {
    case 'Deployment':
      return {
        apiVersion,
        kind,
        metadata,
        spec: {
          selector: { matchLabels: { app: 'fuzz' } },
          template: { metadata: { labels: { app: 'fuzz' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
      };
    case 'Pod':
      return {
        apiVersion,
        kind,
        metadata,
        spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '1' } } }] },
      };
    case 'Service':
      return { apiVersion, kind, metadata, spec: { ports: [{ port: 80 }], selector: { app: 'fuzz' } } };
    case 'Secret':
      return { apiVersion, kind, metadata, data: { k: 'dmFsdWU=' }, stringData: { s: 'v' } };
    case 'Lease':
      return {
        apiVersion,
        kind,
        metadata,
        spec: { holderIdentity: 'h', renewTime: '2024-01-01T00:00:00.000000Z', leaseDurationSeconds: 10 },
      };
    case 'Gadget':
      return { apiVersion, kind, metadata, spec: { replicas: 1, color: 'red' } };
    case 'Node':
      return { apiVersion, kind, metadata, status: { capacity: { cpu: '1' } } };
    case 'Namespace':
      return { apiVersion, kind, metadata };
    default:
      return { apiVersion, kind, metadata, data: { a: '1' } };
  }
}

const PATHS_IN_OBJECTS = [
  'metadata',
  'metadata.name',
  'metadata.labels',
  'metadata.annotations',
  'metadata.finalizers',
  'metadata.ownerReferences',
  'metadata.resourceVersion',
  'metadata.generateName',
  'metadata.namespace',
  'metadata.uid',
  'metadata.creationTimestamp',
  'metadata.deletionTimestamp',
  'metadata.managedFields',
  'spec',
  'spec.replicas',
  'spec.containers',
  'spec.template',
  'spec.ports',
  'data',
  'data.a',
  'status',
  'kind',
  'apiVersion',
  'stringData',
  'spec.selector',
];

function mutate(r: Rng, obj: Record<string, unknown>): void {
  const n = 1 + r.int(3);
  for (let i = 0; i < n; i++) {
    const path = r.pick(PATHS_IN_OBJECTS).split('.');
    let cur: Record<string, unknown> = obj;
    for (const p of path.slice(0, -1)) {
      if (typeof cur[p] !== 'object' || cur[p] === null) cur[p] = {};
      cur = cur[p] as Record<string, unknown>;
    }
    const last = path[path.length - 1];
    const choice = r.int(6);
    if (choice === 0) cur[last] = badValue(r);
    else if (choice === 1) cur[last] = r.pick(['Bad_Name', '-x-', 'a'.repeat(254), 'UPPER', 'a..b', '']);
    else if (choice === 2)
      cur[last] = { 'in valid': 'x', ['k'.repeat(64)]: 'v', 'ok/a': 'v'.repeat(64), 'example.com/': '' };
    else if (choice === 3) cur[last] = 's'.repeat(r.pick([1_000, 100_000, 1_000_000]));
    else if (choice === 4)
      cur[last] = [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'o',
          uid: r.pick(['', 'u', 'not-a-uid']),
          controller: r.pick([true, 'yes', 1]),
        },
      ];
    else delete cur[last];
  }
}

function deepNesting(r: Rng): string {
  const depth = r.pick([1_000, 10_000, 100_000]);
  const inner = r.chance(0.5) ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  const where = r.int(3);
  if (where === 0) return inner;
  if (where === 1)
    return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","labels":${inner}},"data":{}}`;
  return `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"deep"},"spec":${inner}}`;
}

function randomPatch(r: Rng, contentType: string, base: Record<string, unknown>): unknown {
  if (contentType === 'application/json-patch+json') {
    const ops = ['add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'];
    return Array.from({ length: 1 + r.int(4) }, () => ({
      op: r.pick(ops),
      path: r.pick([
        '/data/a',
        '/metadata/labels/x',
        '/metadata/name',
        '/spec/replicas',
        '/status/capacity/example.com~1foo',
        '/metadata/finalizers/-',
        '',
        '/',
        '/a/b/c/d',
        '/~2',
        '/metadata/resourceVersion',
        '/spec/containers/0',
      ]),
      from: r.pick(['/data', '/metadata', '/nope', undefined]),
      value: badValue(r),
    }));
  }
  if (contentType === 'application/strategic-merge-patch+json') {
    return r.pick([
      {
        spec: {
          template: { spec: { containers: [{ name: 'c', $patch: r.pick(['delete', 'replace', 'merge', 'bogus']) }] } },
        },
      },
      { $patch: r.pick(['delete', 'replace', 'bogus']) },
      { metadata: { $deleteFromPrimitiveList: badValue(r), '$setElementOrder/finalizers': badValue(r) } },
      { spec: { $retainKeys: badValue(r), strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      { spec: { containers: badValue(r) } },
      { metadata: { labels: { x: null, 'bad key': 'v' } } },
    ]);
  }
  const copy = structuredClone(base);
  mutate(r, copy);
  return copy;
}

interface Generated {
  method: string;
  path: string;
  body?: Buffer;
  contentType?: string;
  note: string;
}

function generate(r: Rng): Generated {
  const [prefix, plural, kind, apiVersion] = r.pick(NS_RESOURCES);
  const ns = r.pick(NAMESPACES);
  const name = r.pick(NAMES);
  const shape = r.int(10);
  let path: string;
  let objKind: string = kind;
  let objApi: string = apiVersion;
  if (shape < 6)
    path =
      `${prefix}/namespaces/${ns}/${plural}` +
      (r.chance(0.7) ? `/${name}` + (r.chance(0.2) ? `/${r.pick(SUBRESOURCES)}` : '') : '');
  else if (shape === 6) {
    path = `/api/v1/nodes/fuzz-${name}` + (r.chance(0.3) ? '/status' : '');
    objKind = 'Node';
    objApi = 'v1';
  } else if (shape === 7) {
    path = `/api/v1/namespaces/fuzz-${name}` + (r.chance(0.2) ? `/${r.pick(['status', 'finalize'])}` : '');
    objKind = 'Namespace';
    objApi = 'v1';
  } else if (shape === 8) {
    path = r.pick([
      '/',
      '/api',
      '/apis',
      '/api/v1',
      '/apis/apps',
      '/apis/apps/v1',
      '/apis/nope/v9',
      '/version',
      '/healthz',
      '/openapi/v9',
      '/api/v1/namespaces/fuzz/configmaps/f1/status/extra/segments',
      '//api//v1',
      '/api/v1/%ZZ',
      `/api/v1/${'x'.repeat(5000)}`,
      '/apis/example.com/v1/gadgets',
      '/api/v1/configmaps',
    ]);
  } else {
    path = `/${Array.from({ length: 1 + r.int(6) }, () => r.pick(['api', 'apis', 'v1', 'namespaces', 'fuzz', '..', '%2F', 'configmaps', 'x', '', '\u00e9'])).join('/')}`;
  }
  const method = r.pick([
    'GET',
    'GET',
    'POST',
    'POST',
    'PUT',
    'PATCH',
    'PATCH',
    'DELETE',
    'HEAD',
    'OPTIONS',
    'TRACE',
    'FOO',
  ]);
  const params = new URLSearchParams();
  const nParams = r.chance(0.5) ? r.int(4) : 0;
  for (let i = 0; i < nParams; i++) {
    const [k, vs] = r.pick(QUERY);
    params.append(k, r.pick(vs));
  }
  // A valid watch would stream until the timeout; only malformed watch booleans are fuzzed.
  if (params.get('watch') && ['true', '1', 't', 'T', 'TRUE', 'True'].includes(params.get('watch')!))
    params.delete('watch');
  const qs = params.toString();
  if (qs) path += (path.includes('?') ? '&' : '?') + qs;

  let contentType: string | undefined = r.pick(CONTENT_TYPES);
  if (method === 'PATCH' && r.chance(0.7)) contentType = r.pick(CONTENT_TYPES.slice(3, 7));
  let body: Buffer | undefined;
  let note = 'no body';
  if (method !== 'GET' && method !== 'HEAD' && r.chance(0.9)) {
    const base = template(objKind, objApi, name);
    const b = r.int(10);
    let text: string;
    if (b === 0) {
      text = JSON.stringify(base).slice(0, r.int(JSON.stringify(base).length));
      note = 'truncated';
    } else if (b === 1) {
      text = deepNesting(r);
      note = 'deep';
    } else if (b === 2) {
      text = Buffer.from(Array.from({ length: r.int(200) }, () => r.int(256))).toString('latin1');
      note = 'random bytes';
    } else if (b === 3) {
      text = r.pick([
        '',
        'null',
        '[]',
        '"s"',
        '1',
        '{}',
        'true',
        '---\n- a\n',
        '{"kind":"Status"}',
        '\ufeff{}',
        '{"metadata":null}',
        '{"a":1,"a":2}',
      ]);
      note = 'tiny';
    } else if (b === 4 && contentType?.includes('yaml')) {
      text = `apiVersion: ${objApi}\nkind: ${objKind}\nmetadata:\n  name: ${name}\n  labels: ${r.pick(['[1,2]', '{a: *x}', '!!binary aGk=', '&a [*a]', 'x: y: z'])}\n`;
      note = 'yaml';
    } else if (method === 'PATCH' || b === 5) {
      text = JSON.stringify(randomPatch(r, contentType ?? '', base));
      note = 'patch';
    } else {
      mutate(r, base);
      text = JSON.stringify(base);
      note = 'mutated object';
    }
    body = Buffer.from(text, 'latin1');
  }
  return { method, path, body, contentType: contentType || undefined, note };
}

function checkReply(g: Generated, reply: Reply): string | undefined {
  const what = `${g.method} ${g.path.slice(0, 200)} [${g.contentType}] (${g.note}, ${g.body?.length ?? 0} bytes) -> ${reply.status} ${reply.body.slice(0, 300)}`;
  // kube-apiserver itself answers a resourceVersion from the future with 504 ResourceVersionTooLarge.
  if (
    reply.status === 504 &&
    /"reason":"ResourceVersionTooLarge"/.test(reply.body) &&
    /resourceVersion=\d/.test(g.path)
  )
    return undefined;
  if (reply.status >= 500 || reply.status < 200) return `bad status: ${what}`;
  if (g.method === 'HEAD') return undefined;
  // /healthz-style endpoints answer text; everything else must be JSON.
  if (reply.status < 300 && !reply.contentType.startsWith('application/json')) {
    return /^\/(healthz|livez|readyz|openapi)/.test(g.path) ? undefined : `non-JSON success: ${what}`;
  }
  let parsed: { kind?: string; code?: number; status?: string };
  try {
    parsed = JSON.parse(reply.body);
  } catch {
    return `unparseable body: ${what}`;
  }
  if (reply.status >= 400) {
    if (!reply.contentType.startsWith('application/json')) return `error without application/json: ${what}`;
    if (parsed.kind !== 'Status' || parsed.code !== reply.status || parsed.status !== 'Failure')
      return `error is not a matching Status: ${what}`;
  }
  return undefined;
}

describe('request fuzzing', () => {
  const preserved = new Map<string, string>();
  const preservedPaths = [
    '/api/v1/namespaces/keep',
    '/api/v1/namespaces/keep/configmaps/keep-cm',
    '/api/v1/namespaces/keep/secrets/keep-secret',
    '/apis/apps/v1/namespaces/keep/deployments/keep-deploy',
    '/apis/example.com/v1/namespaces/keep/gadgets/keep-gadget',
  ];

  before(async () => {
    cp = await startTestCluster();
    agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: cp.caPem });
    const post = async (path: string, obj: unknown) => {
      const r = await send('POST', path, Buffer.from(JSON.stringify(obj)), 'application/json');
      assert.ok(r.status === 201, `${path}: ${r.status} ${r.body}`);
    };
    await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: {
              status: {},
              scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
            },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: { replicas: { type: 'integer' }, color: { type: 'string', maxLength: 20 } },
                  },
                  status: { type: 'object', properties: { replicas: { type: 'integer' } } },
                },
              },
            },
          },
        ],
      },
    });
    await eventually(
      async () =>
        (await send('GET', '/apis/example.com/v1/namespaces/default/gadgets', undefined, undefined)).status === 200,
      { what: 'gadgets served' },
    );
    for (const ns of ['keep', 'fuzz']) await post('/api/v1/namespaces', { metadata: { name: ns } });
    await post('/api/v1/namespaces/keep/configmaps', {
      metadata: { name: 'keep-cm', labels: { a: 'b' } },
      data: { k: 'v' },
    });
    await post('/api/v1/namespaces/keep/secrets', { metadata: { name: 'keep-secret' }, stringData: { s: 'secret' } });
    await post('/apis/apps/v1/namespaces/keep/deployments', template('Deployment', 'apps/v1', 'keep-deploy'));
    await post('/apis/example.com/v1/namespaces/keep/gadgets', template('Gadget', 'example.com/v1', 'keep-gadget'));
    for (const p of preservedPaths) {
      const r = await send('GET', p, undefined, undefined);
      assert.equal(r.status, 200, `${p}: ${r.body}`);
      preserved.set(p, r.body);
    }
  });
  after(async () => {
    agent?.destroy();
    await cp?.stop();
  });

  test('a body over 3 MiB is 413 with a Status', async () => {
    const big = Buffer.from(JSON.stringify({ metadata: { name: 'big' }, data: { a: 'x'.repeat(3.5 * 1024 * 1024) } }));
    const r = await send('POST', '/api/v1/namespaces/fuzz/configmaps', big, 'application/json');
    assert.equal(r.status, 413, r.body.slice(0, 300));
    const st = JSON.parse(r.body);
    assert.equal(st.kind, 'Status');
    assert.equal(st.code, 413);
    assert.equal(st.reason, 'RequestEntityTooLarge');
  });

  test(
    `${REQUESTS} seeded random requests (seed ${SEED}) never get a 5xx, a hang or a dropped connection`,
    { timeout: 120_000 },
    async () => {
      const r = rng(SEED);
      const plan = Array.from({ length: REQUESTS }, () => generate(r));
      const failures: string[] = [];
      let next = 0;
      const started = Date.now();
      const worker = async () => {
        while (next < plan.length) {
          const g = plan[next++];
          try {
            const reply = await send(g.method, g.path, g.body, g.contentType);
            const problem = checkReply(g, reply);
            if (problem) failures.push(problem);
          } catch (e) {
            failures.push(
              `connection failure (${(e as Error).message}): ${g.method} ${g.path.slice(0, 200)} [${g.contentType}] (${g.note})`,
            );
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const elapsed = Date.now() - started;
      assert.deepEqual(failures.slice(0, 20), [], `${failures.length} failures with FUZZ_SEED=${SEED}`);
      assert.ok(elapsed < 60_000, `took ${elapsed} ms`);
    },
  );

  test('afterwards the server answers and preserved objects are byte-for-byte unchanged', async () => {
    const v = await send('GET', '/version', undefined, undefined);
    assert.equal(v.status, 200);
    for (const [p, body] of preserved) {
      const r = await send('GET', p, undefined, undefined);
      assert.equal(r.status, 200, `${p}: ${r.body}`);
      assert.equal(r.body, body, p);
    }
    const c = await send(
      'POST',
      '/api/v1/namespaces/keep/configmaps',
      Buffer.from('{"metadata":{"name":"after-fuzz"}}'),
      'application/json',
    );
    assert.equal(c.status, 201, c.body);
  });
});
