// `peerpods install|deploy --kustomize DIR` read a scaffolded project's layers as `kubectl apply -k`
// does for plain layers: the `resources` of each kustomization, files and directories, in order.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readKustomize } from '../../../src/cli/manifests/kustomize.ts';

describe('readKustomize', () => {
  let dir: string;
  const put = async (f: string, text: string) => {
    await mkdir(path.dirname(path.join(dir, f)), { recursive: true });
    await writeFile(path.join(dir, f), text);
  };
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'peerpods-kustomize-'));
    await put('crd/kustomization.yaml', 'resources:\n- bases/a.yaml\n# +marker\n');
    await put('crd/bases/a.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n');
    await put('rbac/kustomization.yaml', 'resources:\n- sa.yaml\n');
    await put(
      'rbac/sa.yaml',
      'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: s\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: t\n',
    );
    await put('default/kustomization.yaml', 'resources:\n- ../crd\n- ../rbac\n');
    await put('empty/kustomization.yaml', 'resources:\n# +marker\n');
    await put('transform/kustomization.yaml', 'namespace: x\nnamePrefix: p-\nresources: []\n');
    await put('missing/kustomization.yaml', 'resources:\n- manifests.yaml\n');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('reads nested layers and multi-document files in the listed order', () => {
    assert.deepEqual(
      readKustomize(path.join(dir, 'default')).map((o) => `${o.kind}/${o.metadata.name}`),
      ['ConfigMap/a', 'ServiceAccount/s', 'Secret/t'],
    );
    assert.deepEqual(readKustomize(path.join(dir, 'empty')), []);
  });

  it('refuses transformers instead of ignoring them, and names missing files', () => {
    assert.throws(
      () => readKustomize(path.join(dir, 'transform')),
      /only resources are supported, not namespace, namePrefix/,
    );
    assert.throws(
      () => readKustomize(path.join(dir, 'missing')),
      /lists manifests\.yaml, which does not exist \(generated files: run npm run generate\)/,
    );
    assert.throws(() => readKustomize(path.join(dir, 'nowhere')), /no such directory/);
    assert.throws(() => readKustomize(path.join(dir, 'crd/bases')), /no kustomization\.yaml/);
  });
});
