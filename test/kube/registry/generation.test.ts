// metadata.generation moves as each kind's registry strategy says (PrepareForUpdate in
// kubernetes/kubernetes pkg/registry/apps/<kind>/strategy.go): a Deployment's also when its
// annotations change, "because annotations are copied from deployments to their replica sets"
// (deployment/strategy.go); ReplicaSet, StatefulSet and DaemonSet only when their spec changes.
// A label change moves none of them, nor does a /status write.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { kubectl } from '../../helpers/kubectl.ts';

const template = (app: string): object => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
});

const manifests: Record<string, object> = {
  deployment: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'gen' },
    spec: { replicas: 0, selector: { matchLabels: { app: 'gen-d' } }, template: template('gen-d') },
  },
  replicaset: {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'gen' },
    spec: { replicas: 0, selector: { matchLabels: { app: 'gen-rs' } }, template: template('gen-rs') },
  },
  statefulset: {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'gen' },
    spec: { replicas: 0, serviceName: 'gen', selector: { matchLabels: { app: 'gen-s' } }, template: template('gen-s') },
  },
  daemonset: {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'gen' },
    spec: { selector: { matchLabels: { app: 'gen-ds' } }, template: template('gen-ds') },
  },
};

describe('metadata.generation per kind strategy', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 0 });
  });
  after(() => cp.stop());

  async function run(args: string[], input?: string, version?: string): Promise<string> {
    const r = await kubectl(cp.kubeconfigPath, args, { input, version });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }
  const generation = async (kind: string): Promise<number> =>
    Number(await run(['get', kind, 'gen', '-n', 'default', '-o', 'jsonpath={.metadata.generation}']));

  for (const version of ['1.27', '1.33']) {
    test(`kubectl ${version}: a Deployment's annotation change bumps generation, a label change does not`, async () => {
      await run(['apply', '-f', '-'], JSON.stringify(manifests.deployment), version);
      const start = await generation('deployment');
      await run(['label', 'deployment/gen', `tier-${version}=web`], undefined, version);
      assert.equal(await generation('deployment'), start, 'label change');
      await run(['annotate', 'deployment/gen', `note-${version}=one`], undefined, version);
      assert.equal(await generation('deployment'), start + 1, 'annotation added');
      await run(['annotate', '--overwrite', 'deployment/gen', `note-${version}=two`], undefined, version);
      assert.equal(await generation('deployment'), start + 2, 'annotation changed');
      await run(['annotate', 'deployment/gen', `note-${version}-`], undefined, version);
      assert.equal(await generation('deployment'), start + 3, 'annotation removed');
      await run(['scale', 'deployment/gen', '--replicas=0'], undefined, version);
      assert.equal(await generation('deployment'), start + 3, 'no-op scale');
    });
  }

  for (const kind of ['replicaset', 'statefulset', 'daemonset']) {
    test(`${kind}: annotations and labels leave generation alone; the spec moves it`, async () => {
      await run(['apply', '-f', '-'], JSON.stringify(manifests[kind]));
      assert.equal(await generation(kind), 1);
      await run(['annotate', `${kind}/gen`, 'note=one']);
      await run(['label', `${kind}/gen`, 'tier=web']);
      assert.equal(await generation(kind), 1);
      await run(['set', 'image', `${kind}/gen`, 'app=nginx:1.28']);
      assert.equal(await generation(kind), 2);
    });
  }
});
