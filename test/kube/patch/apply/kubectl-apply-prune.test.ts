// Server-side apply removes what an applier stops setting, unless someone else still owns it
// (structured-merge-diff's Updater.Apply: the fields in the manager's previous set that are in no
// manager's set after the apply are removed; sigs.k8s.io/structured-merge-diff/v4/merge/update.go,
// prune()). Driven with kubectl `apply --server-side` as 1.27 and 1.33 send it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster();
});
after(async () => {
  await cp?.stop();
});

const configMap = (name: string, data: Record<string, string>, labels: Record<string, string> = {}) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels }, data });

interface Container {
  name: string;
  image: string;
  ports?: Array<{ containerPort: number; name?: string }>;
  env?: Array<{ name: string; value: string }>;
}

const deployment = (containers: Container[], labels: Record<string, string>) =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'pruned', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'pruned' } },
      template: { metadata: { labels: { app: 'pruned', ...labels } }, spec: { containers } },
    },
  });

for (const version of ['1.27', '1.33']) {
  const k = (args: string[], input?: string) => kubectl(cp.kubeconfigPath, args, { version, input });
  const apply = async (manager: string, input: string): Promise<void> => {
    const r = await k(['apply', '--server-side', '--field-manager', manager, '-f', '-'], input);
    assert.equal(r.code, 0, r.stderr);
  };
  const getJson = async (what: string[]): Promise<Record<string, unknown>> => {
    const r = await k(['get', ...what, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };

  test(`[${version}] a field the applier alone owned goes when its apply omits it; a co-owned one stays`, async () => {
    const name = `prune-${version.replace('.', '')}`;
    await apply('alice', configMap(name, { a: '1', b: '2', c: '3' }, { team: 'x', tier: 'web' }));
    // bob applies b with the same value: alice and bob now share b.
    await apply('bob', configMap(name, { b: '2' }));
    // A plain update (kubectl patch: an Update manager) takes c.
    const r = await k(['patch', 'configmap', name, '--type', 'merge', '-p', '{"data":{"c":"30"}}']);
    assert.equal(r.code, 0, r.stderr);
    // alice drops b, c and the label tier.
    await apply('alice', configMap(name, { a: '1' }, { team: 'x' }));
    const cm = await getJson(['configmap', name]);
    assert.deepEqual(cm.data, { a: '1', b: '2', c: '30' });
    assert.deepEqual((cm.metadata as { labels: unknown }).labels, { team: 'x' });
    // bob drops b too: now nobody owns it and it goes.
    await apply('bob', configMap(name, {}));
    assert.deepEqual((await getJson(['configmap', name])).data, { a: '1', c: '30' });
  });

  test(`[${version}] omitted list items keyed by their keys and nested map keys are removed`, async () => {
    await k(['delete', 'deployment', 'pruned', '--ignore-not-found']);
    await apply(
      'alice',
      deployment(
        [
          {
            name: 'web',
            image: 'nginx',
            ports: [
              { containerPort: 80, name: 'http' },
              { containerPort: 443, name: 'https' },
            ],
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
          },
          { name: 'log', image: 'busybox' },
        ],
        { tier: 'web', track: 'stable' },
      ),
    );
    await apply(
      'alice',
      deployment(
        [
          {
            name: 'web',
            image: 'nginx',
            ports: [{ containerPort: 80, name: 'http' }],
            env: [{ name: 'A', value: '1' }],
          },
        ],
        { tier: 'web' },
      ),
    );
    const d = (await getJson(['deployment', 'pruned'])) as {
      spec: { template: { metadata: { labels: unknown }; spec: { containers: Container[] } } };
    };
    assert.deepEqual(d.spec.template.metadata.labels, { app: 'pruned', tier: 'web' });
    const containers = d.spec.template.spec.containers;
    assert.deepEqual(
      containers.map((c) => c.name),
      ['web'],
    );
    assert.deepEqual(
      containers[0].ports?.map((p) => p.containerPort),
      [80],
    );
    assert.deepEqual(containers[0].env, [{ name: 'A', value: '1' }]);
  });
}
