// `peerpods manifests|deploy --extra-provider`: the Roles a further provider's PeerPodConfig needs
// under the namespaced controllers, generated beside the components' own (which stay byte for byte
// as without the flag): the PeerPodConfig controller's on its adaptor DaemonSet, and, when the config
// names its own ConfigMap/Secret, the PeerPod controller's and the adaptor's reads of them.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { buildFiles } from '../../../src/cli/manifests/layers.ts';
import { runCli } from '../../helpers/cli.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- reads of generated YAML */
const sim = { runtimeClassName: 'kata-remote-sim', configMap: 'sim-cm', secret: 'sim-secret' };

test('a further provider adds its own Roles and bindings; every other file is unchanged', () => {
  const plain = new Map(buildFiles().map((f) => [f.path, f.content]));
  const withSim = new Map(buildFiles({ extraProviders: [sim] }).map((f) => [f.path, f.content]));
  const added = [...withSim.keys()].filter((p) => !plain.has(p)).sort();
  assert.deepEqual(added, [
    'rbac/role_peerpod-adaptor-kata-remote-sim.yaml',
    'rbac/role_peerpod-controller-kata-remote-sim.yaml',
    'rbac/role_peerpodconfig-controller-kata-remote-sim.yaml',
    'rbac/rolebinding_peerpod-adaptor-kata-remote-sim.yaml',
    'rbac/rolebinding_peerpod-controller-kata-remote-sim.yaml',
    'rbac/rolebinding_peerpodconfig-controller-kata-remote-sim.yaml',
  ]);
  const changed = [...plain.keys()].filter((p) => plain.get(p) !== withSim.get(p));
  assert.deepEqual(changed, ['rbac/kustomization.yaml'], 'only the layer list grows');

  const doc = (p: string) => parse(withSim.get(p) as string) as any;
  assert.deepEqual(doc('rbac/role_peerpodconfig-controller-kata-remote-sim.yaml').rules, [
    {
      apiGroups: ['apps'],
      resources: ['daemonsets'],
      verbs: ['get', 'list', 'watch', 'patch'],
      resourceNames: ['peerpodconfig-ctrl-caa-daemon-kata-remote-sim'],
    },
    // the capacity evaluation's settings
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: ['sim-cm'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['sim-secret'] },
  ]);
  const reads = [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'], resourceNames: ['sim-cm'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'], resourceNames: ['sim-secret'] },
  ];
  assert.deepEqual(doc('rbac/role_peerpod-controller-kata-remote-sim.yaml').rules, reads);
  assert.deepEqual(doc('rbac/role_peerpod-adaptor-kata-remote-sim.yaml').rules, reads);
  const binding = doc('rbac/rolebinding_peerpod-adaptor-kata-remote-sim.yaml');
  assert.deepEqual(binding.roleRef, {
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'Role',
    name: 'peerpod-adaptor-kata-remote-sim',
  });
  assert.deepEqual(binding.subjects, [
    { kind: 'ServiceAccount', name: 'peerpod-adaptor', namespace: 'peerpods-system' },
  ]);
});

test('a further provider using peer-pods-cm and peer-pods-secret only needs its DaemonSet named', () => {
  const files = buildFiles({ extraProviders: [{ runtimeClassName: 'kata-remote-aws' }] }).map((f) => f.path);
  assert.deepEqual(files.filter((p) => p.includes('kata-remote-aws')).sort(), [
    'rbac/role_peerpodconfig-controller-kata-remote-aws.yaml',
    'rbac/rolebinding_peerpodconfig-controller-kata-remote-aws.yaml',
  ]);
});

test('`peerpods manifests --extra-provider` writes them; a malformed value is refused', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'peerpods-extra-provider-'));
  try {
    const ok = runCli(['manifests', '-o', dir, '--extra-provider', 'kata-remote-sim:sim-cm:sim-secret']);
    assert.equal((await ok.exited).code, 0, ok.output());
    const rbac = await readdir(path.join(dir, 'rbac'));
    assert.ok(rbac.includes('role_peerpod-controller-kata-remote-sim.yaml'), rbac.join(' '));
    assert.match(
      await readFile(path.join(dir, 'rbac', 'kustomization.yaml'), 'utf8'),
      /role_peerpod-adaptor-kata-remote-sim\.yaml/,
    );
    const bad = runCli(['manifests', '-o', dir, '--extra-provider', 'kata-remote-sim:sim-cm']);
    assert.notEqual((await bad.exited).code, 0);
    assert.match(bad.output(), /expected RUNTIMECLASS or RUNTIMECLASS:CONFIGMAP:SECRET/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
