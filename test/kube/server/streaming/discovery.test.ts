// Discovery lists the kubelet subresources as kube-apiserver does (kubectl api-resources, and
// clients that check for exec/portforward support before trying), e.g. from
// `kubectl get --raw /api/v1` against kube 1.33.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster();
});
after(() => cp.stop());

test('/api/v1 lists pods/attach, exec, log and portforward with their kinds and verbs', async () => {
  const r = await kubectl(cp.kubeconfigPath, ['get', '--raw', '/api/v1']);
  assert.equal(r.code, 0, r.stderr);
  const resources = (JSON.parse(r.stdout) as { resources: Array<Record<string, unknown>> }).resources;
  const entry = (name: string) => resources.find((x) => x.name === name);
  const expected = (name: string, kind: string, verbs: string[]) => ({
    name,
    singularName: '',
    namespaced: true,
    kind,
    verbs,
  });
  assert.deepEqual(entry('pods/attach'), expected('pods/attach', 'PodAttachOptions', ['create', 'get']));
  assert.deepEqual(entry('pods/exec'), expected('pods/exec', 'PodExecOptions', ['create', 'get']));
  assert.deepEqual(entry('pods/log'), expected('pods/log', 'Pod', ['get']));
  assert.deepEqual(entry('pods/portforward'), expected('pods/portforward', 'PodPortForwardOptions', ['create', 'get']));
});
