// The DefaultTolerationSeconds admission plugin
// (plugin/pkg/admission/defaulttolerationseconds/admission.go): every pod that does not already
// tolerate node.kubernetes.io/not-ready or node.kubernetes.io/unreachable for NoExecute gets a
// 300 s toleration of each, seen with kubectl get pod -o json.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { kubectl } from '../../helpers/kubectl.ts';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster();
});
after(async () => {
  await cp?.stop();
});

for (const version of ['1.27', '1.33']) {
  const k = (args: string[], input?: string) => kubectl(cp.kubeconfigPath, args, { version, input });
  const suffix = version.replace('.', '');

  test(`[${version}] a created pod gets the not-ready and unreachable NoExecute tolerations of 300 s`, async () => {
    let r = await k(['run', `plain-${suffix}`, '--image=nginx']);
    assert.equal(r.code, 0, r.stderr);
    r = await k(['get', 'pod', `plain-${suffix}`, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((JSON.parse(r.stdout) as { spec: { tolerations: unknown } }).spec.tolerations, [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
  });

  test(`[${version}] a pod tolerating unreachable keeps its own toleration and gets only not-ready`, async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `own-${suffix}`, namespace: 'default' },
      spec: {
        containers: [{ name: 'c', image: 'nginx' }],
        tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }],
      },
    };
    let r = await k(['create', '-f', '-'], JSON.stringify(pod));
    assert.equal(r.code, 0, r.stderr);
    r = await k(['get', 'pod', `own-${suffix}`, '-o', 'json']);
    assert.deepEqual((JSON.parse(r.stdout) as { spec: { tolerations: unknown } }).spec.tolerations, [
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
  });
}
