// Conformance through the real kubectl binaries: the dispatcher plus pinned old and new versions,
// since each version talks to the server a little differently (discovery, tables, watch).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { kubectl, kubectlStream, type RunResult } from '../../helpers/kubectl.ts';

// Pinned versions bracket the supported range; undefined is the dispatcher.
const VERSIONS: Array<string | undefined> = [undefined, '1.27', '1.33'];
const label = (v: string | undefined) => v ?? 'dispatcher';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster();
});
after(async () => {
  await cp?.stop();
});

function k(args: string[], opts: { version?: string; input?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return kubectl(cp.kubeconfigPath, args, opts);
}

// `create -f` without OpenAPI validation: it works on every version and sends JSON.
async function createObj(obj: unknown, version?: string): Promise<RunResult> {
  return k(['create', '-f', '-', '--validate=false'], { input: JSON.stringify(obj), version });
}

function configMap(name: string, extra: Record<string, unknown> = {}, ns = 'default') {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ...extra }, data: { a: '1' } };
}

async function getJson(
  args: string[],
  version?: string,
): Promise<Record<string, unknown> & { metadata: Record<string, unknown> }> {
  const r = await k(['get', ...args, '-o', 'json'], { version });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wdg'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
          },
        },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
      },
    ],
  },
};

describe('kubectl', () => {
  for (const v of VERSIONS) {
    test(`[${label(v)}] get lists the bootstrap namespaces`, async () => {
      const r = await k(['get', 'namespaces', '-o', 'name'], { version: v });
      assert.equal(r.code, 0, r.stderr);
      for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
        assert.match(r.stdout, new RegExp(`^namespace/${ns}$`, 'm'));
    });
    test(`[${label(v)}] get namespaces prints the server's Table (STATUS column)`, async () => {
      const r = await k(['get', 'namespaces'], { version: v });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^NAME\s+STATUS\s+AGE/m);
      for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
        assert.match(r.stdout, new RegExp(`^${ns}\\s+Active\\s+\\d+s`, 'm'));
    });
  }

  for (const v of VERSIONS) {
    test(`[${label(v)}] create, get -o json, AlreadyExists, delete, NotFound`, async () => {
      const name = `crud-${label(v).replace('.', '-')}`;
      let r = await createObj(configMap(name), v);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`configmap/${name} created`));
      const cm = await getJson(['configmap', name], v);
      assert.deepEqual(cm.data, { a: '1' });
      assert.match(String(cm.metadata.resourceVersion), /^\d+$/);
      assert.ok(cm.metadata.uid);
      r = await createObj(configMap(name), v);
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`Error from server \\(AlreadyExists\\).*configmaps "${name}" already exists`));
      r = await k(['delete', 'configmap', name], { version: v });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`configmap "${name}" deleted`));
      r = await k(['get', 'configmap', name], { version: v });
      assert.equal(r.code, 1);
      assert.equal(r.stderr.trim(), `Error from server (NotFound): configmaps "${name}" not found`);
      r = await k(['delete', 'configmap', name], { version: v });
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`Error from server \\(NotFound\\): configmaps "${name}" not found`));
    });
  }

  test('create subcommands (kubectl 1.31, JSON bodies)', async () => {
    let r = await k(['create', 'namespace', 'sub-ns'], { version: '1.31' });
    assert.equal(r.code, 0, r.stderr);
    r = await k(['create', 'configmap', 'sub-cm', '-n', 'sub-ns', '--from-literal=x=y'], { version: '1.31' });
    assert.equal(r.code, 0, r.stderr);
    const cm = await getJson(['configmap', 'sub-cm', '-n', 'sub-ns']);
    assert.deepEqual(cm.data, { x: 'y' });
    const ns = await getJson(['namespace', 'sub-ns']);
    assert.equal((ns.metadata.labels as Record<string, string>)['kubernetes.io/metadata.name'], 'sub-ns');
  });

  test('label and annotate: add, refuse without --overwrite, overwrite, remove with key-', async () => {
    assert.equal((await createObj(configMap('lbl'))).code, 0);
    for (const kind of ['label', 'annotate'] as const) {
      const field = kind === 'label' ? 'labels' : 'annotations';
      let r = await k([kind, 'configmap', 'lbl', 'tier=web']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /configmap\/lbl (labeled|annotated)/);
      r = await k([kind, 'configmap', 'lbl', 'tier=db']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /already has a value \(web\)/);
      assert.match(r.stderr, /--overwrite is false/);
      r = await k([kind, 'configmap', 'lbl', 'tier=db', '--overwrite'], { version: '1.27' });
      assert.equal(r.code, 0, r.stderr);
      let cm = await getJson(['configmap', 'lbl']);
      assert.equal((cm.metadata[field] as Record<string, string>).tier, 'db');
      r = await k([kind, 'configmap', 'lbl', 'tier-'], { version: '1.33' });
      assert.equal(r.code, 0, r.stderr);
      cm = await getJson(['configmap', 'lbl']);
      assert.equal((cm.metadata[field] as Record<string, string> | undefined)?.tier, undefined);
    }
  });

  test('patch --type merge, json and strategic', async () => {
    assert.equal((await createObj(configMap('pt'))).code, 0);
    let r = await k(['patch', 'configmap', 'pt', '--type', 'merge', '-p', '{"data":{"b":"2","a":null}}']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /configmap\/pt patched/);
    assert.deepEqual((await getJson(['configmap', 'pt'])).data, { b: '2' });
    r = await k(
      [
        'patch',
        'configmap',
        'pt',
        '--type',
        'json',
        '-p',
        '[{"op":"add","path":"/data/c","value":"3"},{"op":"remove","path":"/data/b"}]',
      ],
      { version: '1.27' },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((await getJson(['configmap', 'pt'])).data, { c: '3' });
    r = await k([
      'patch',
      'configmap',
      'pt',
      '--type',
      'json',
      '-p',
      '[{"op":"test","path":"/data/c","value":"nope"}]',
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /The request is invalid/);
    const deploy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'smp', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'smp' } },
        template: {
          metadata: { labels: { app: 'smp' } },
          spec: {
            containers: [
              { name: 'a', image: 'nginx' },
              { name: 'b', image: 'busybox' },
            ],
          },
        },
      },
    };
    r = await createObj(deploy);
    assert.equal(r.code, 0, r.stderr);
    r = await k(
      [
        'patch',
        'deployment',
        'smp',
        '--type',
        'strategic',
        '-p',
        '{"spec":{"template":{"spec":{"containers":[{"name":"b","image":"busybox:2"}]}}}}',
      ],
      { version: '1.33' },
    );
    assert.equal(r.code, 0, r.stderr);
    const d = await getJson(['deployment', 'smp']);
    const containers = (d.spec as { template: { spec: { containers: Array<{ name: string; image: string }> } } })
      .template.spec.containers;
    assert.deepEqual(
      containers.map((c) => [c.name, c.image]),
      [
        ['a', 'nginx'],
        ['b', 'busybox:2'],
      ],
    );
  });

  for (const v of ['1.27', '1.33']) {
    test(`[${v}] get -w prints ADDED then MODIFIED and DELETED`, async () => {
      const name = `watched-${v.replace('.', '-')}`;
      const w = kubectlStream(
        cp.kubeconfigPath,
        [
          'get',
          'configmaps',
          '-w',
          '--output-watch-events',
          '-n',
          'default',
          '--field-selector',
          `metadata.name=${name}`,
        ],
        v,
      );
      try {
        // Whether the create lands before or after kubectl's list, it prints as ADDED.
        assert.equal((await createObj(configMap(name))).code, 0);
        await eventually(() => /ADDED\s+watched/.test(w.output()), { what: `ADDED in ${w.output()}` });
        assert.equal((await k(['label', 'configmap', name, 'x=y'])).code, 0);
        await eventually(() => /MODIFIED\s+watched/.test(w.output()), { what: `MODIFIED in ${w.output()}` });
        assert.equal((await k(['delete', 'configmap', name])).code, 0);
        await eventually(() => /DELETED\s+watched/.test(w.output()), { what: `DELETED in ${w.output()}` });
        const out = w.output();
        assert.ok(
          out.indexOf('ADDED') < out.indexOf('MODIFIED') && out.indexOf('MODIFIED') < out.indexOf('DELETED'),
          out,
        );
        assert.doesNotMatch(out, /error/i);
      } finally {
        w.stop();
      }
    });
  }

  test('get -l with set-based selectors', async () => {
    for (const [n, env] of [
      ['sel-a', 'prod'],
      ['sel-b', 'dev'],
      ['sel-c', 'qa'],
    ])
      assert.equal((await createObj(configMap(n, { labels: { env, sel: 'yes' } }))).code, 0);
    assert.equal((await createObj(configMap('sel-d', { labels: { sel: 'yes' } }))).code, 0);
    const names = async (sel: string, v?: string) => {
      const r = await k(['get', 'configmaps', '-l', sel, '-o', 'name'], { version: v });
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.trim().split('\n').filter(Boolean).sort();
    };
    assert.deepEqual(await names('env in (prod,dev)'), ['configmap/sel-a', 'configmap/sel-b']);
    assert.deepEqual(await names('sel=yes,env notin (prod,dev)', '1.27'), ['configmap/sel-c', 'configmap/sel-d']);
    assert.deepEqual(await names('sel,!env', '1.33'), ['configmap/sel-d']);
    assert.deepEqual(await names('env!=prod,sel==yes'), ['configmap/sel-b', 'configmap/sel-c', 'configmap/sel-d']);
    const r = await k(['get', 'configmaps', '-l', 'env in (prod']);
    assert.equal(r.code, 1);
  });

  test('get --field-selector metadata.name, and an unsupported field is rejected', async () => {
    assert.equal((await createObj(configMap('fs-one'))).code, 0);
    assert.equal((await createObj(configMap('fs-two'))).code, 0);
    let r = await k(['get', 'configmaps', '--field-selector', 'metadata.name=fs-one', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'configmap/fs-one');
    r = await k(
      ['get', 'configmaps', '-A', '--field-selector', 'metadata.name=fs-two,metadata.namespace=default', '-o', 'name'],
      { version: '1.27' },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'configmap/fs-two');
    r = await k(['get', 'configmaps', '--field-selector', 'data.a=1']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error from server \(BadRequest\):.*"data\.a" is not a known field selector/);
  });

  test('delete of an object with a finalizer: --wait=false returns, removing the finalizer completes it', async () => {
    assert.equal((await createObj(configMap('fin', { finalizers: ['example.com/hold'] }))).code, 0);
    const r = await k(['delete', 'configmap', 'fin', '--wait=false'], { timeoutMs: 15_000 });
    assert.equal(r.code, 0, r.stderr);
    const cm = await getJson(['configmap', 'fin']);
    assert.ok(cm.metadata.deletionTimestamp, 'deletionTimestamp set');
    // A waiting delete blocks until the finalizer goes.
    const waiting = k(['delete', 'configmap', 'fin', '--timeout=20s'], { version: '1.33' });
    let settled = false;
    void waiting.then(() => (settled = true));
    await new Promise((res) => setImmediate(res));
    assert.equal((await k(['get', 'configmap', 'fin', '-o', 'name'])).code, 0);
    assert.equal(settled, false, 'delete returned before the finalizer was removed');
    const p = await k(['patch', 'configmap', 'fin', '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}']);
    assert.equal(p.code, 0, p.stderr);
    const done = await waiting;
    assert.equal(done.code, 0, done.stderr);
    const g = await k(['get', 'configmap', 'fin']);
    assert.equal(g.code, 1);
    assert.match(g.stderr, /NotFound/);
  });

  test('delete ns removes its contents and then the namespace', async () => {
    assert.equal((await createObj({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } })).code, 0);
    assert.equal((await createObj(configMap('inside', {}, 'doomed'))).code, 0);
    const r = await k(['delete', 'namespace', 'doomed', '--timeout=30s'], { version: '1.27' });
    assert.equal(r.code, 0, r.stderr);
    const g = await k(['get', 'namespace', 'doomed']);
    assert.equal(g.code, 1);
    assert.match(g.stderr, /Error from server \(NotFound\): namespaces "doomed" not found/);
    const c = await k(['get', 'configmaps', '-n', 'doomed', '-o', 'name']);
    assert.equal(c.stdout.trim(), '');
  });

  test('delete of the default namespace is Forbidden', async () => {
    const r = await k(['delete', 'namespace', 'default']);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /Error from server \(Forbidden\): namespaces "default" is forbidden: this namespace may not be deleted/,
    );
    assert.equal((await k(['get', 'namespace', 'default'])).code, 0);
  });

  test('replace updates the object; replace of a missing object is NotFound', async () => {
    assert.equal((await createObj(configMap('rep'))).code, 0);
    const before = await getJson(['configmap', 'rep']);
    let r = await k(['replace', '-f', '-', '--validate=false'], {
      input: JSON.stringify({ ...configMap('rep'), data: { z: '26' } }),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /configmap\/rep replaced/);
    const after = await getJson(['configmap', 'rep']);
    assert.deepEqual(after.data, { z: '26' });
    assert.equal(after.metadata.uid, before.metadata.uid);
    assert.ok(Number(after.metadata.resourceVersion) > Number(before.metadata.resourceVersion));
    r = await k(['replace', '-f', '-', '--validate=false'], { input: JSON.stringify(configMap('rep-missing')) });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /NotFound.*configmaps "rep-missing" not found/);
  });

  test('get --raw /version, /api, /apis', async () => {
    const ver = JSON.parse((await k(['get', '--raw', '/version'])).stdout);
    assert.match(ver.gitVersion, /^v1\.\d+/);
    assert.match(ver.major, /^\d+$/);
    const api = JSON.parse((await k(['get', '--raw', '/api'], { version: '1.27' })).stdout);
    assert.equal(api.kind, 'APIVersions');
    assert.deepEqual(api.versions, ['v1']);
    const apis = JSON.parse((await k(['get', '--raw', '/apis'])).stdout);
    assert.equal(apis.kind, 'APIGroupList');
    const groups = apis.groups.map((g: { name: string }) => g.name);
    for (const g of ['apps', 'coordination.k8s.io', 'apiextensions.k8s.io']) assert.ok(groups.includes(g), g);
    const v1 = JSON.parse((await k(['get', '--raw', '/api/v1'])).stdout);
    assert.ok(v1.resources.some((r: { name: string }) => r.name === 'configmaps'));
    const r = await k(['get', '--raw', '/nonexistent']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /NotFound/);
  });

  test('api-resources lists core, apps, coordination and a CRD; custom resources are served', async () => {
    let r = await createObj(crd);
    assert.equal(r.code, 0, r.stderr);
    await eventually(
      async () =>
        (await k(['wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=5s'])).code === 0,
      { what: 'CRD established' },
    );
    for (const v of ['1.27', '1.33']) {
      await eventually(
        async () => {
          const res = await k(['api-resources'], { version: v });
          assert.equal(res.code, 0, res.stderr);
          for (const re of [
            /^configmaps\s+cm\s+v1\s+true\s+ConfigMap/m,
            /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment/m,
            /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease/m,
            /^widgets\s+wdg\s+example\.com\/v1\s+true\s+Widget/m,
          ]) {
            assert.match(res.stdout, re);
          }
          return true;
        },
        { what: `api-resources ${v}` },
      );
    }
    r = await createObj({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: 'default' },
      spec: { size: 3 },
    });
    assert.equal(r.code, 0, r.stderr);
    r = await k(['get', 'widgets', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'widget.example.com/w1');
    r = await k(['get', 'wdg', 'w1', '-o', 'jsonpath={.spec.size}'], { version: '1.27' });
    assert.equal(r.stdout, '3');
  });

  test('get of a custom resource prints its additionalPrinterColumns', async () => {
    await eventually(async () => (await k(['get', 'widgets', 'w1', '-o', 'name'])).code === 0, { what: 'w1 exists' });
    const r = await k(['get', 'widgets']);
    assert.equal(r.code, 0, r.stderr);
    // Declared columns replace the defaults: kube-apiserver adds no Age column then.
    assert.match(r.stdout, /^NAME\s+SIZE\s*$/m);
    assert.match(r.stdout, /^w1\s+3\s*$/m);
  });

  test('wait --for=delete returns once the object is gone', async () => {
    assert.equal((await createObj(configMap('waited', { finalizers: ['example.com/hold'] }))).code, 0);
    assert.equal((await k(['delete', 'configmap', 'waited', '--wait=false'])).code, 0);
    const waiting = k(['wait', '--for=delete', 'configmap/waited', '--timeout=20s']);
    const p = await k([
      'patch',
      'configmap',
      'waited',
      '--type',
      'json',
      '-p',
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    ]);
    assert.equal(p.code, 0, p.stderr);
    const r = await waiting;
    assert.equal(r.code, 0, r.stderr);
  });

  test('describe configmap works with no events', async () => {
    assert.equal((await createObj(configMap('desc', { labels: { a: 'b' } }))).code, 0);
    for (const v of ['1.27', '1.33']) {
      const r = await k(['describe', 'configmap', 'desc'], { version: v });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^Name:\s+desc$/m);
      assert.match(r.stdout, /^Namespace:\s+default$/m);
      assert.match(r.stdout, /^Labels:\s+a=b$/m);
      assert.match(r.stdout, /^Events:\s+<none>$/m);
    }
  });

  test('a wrong token is Unauthorized', async () => {
    const bad = join(cp.dir, 'bad-kubeconfig');
    writeFileSync(bad, cp.kubeconfig.replace(cp.token, 'not-the-token'));
    for (const v of [undefined, '1.27']) {
      const r = await kubectl(bad, ['get', 'configmaps'], { version: v });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
    }
  });
});
