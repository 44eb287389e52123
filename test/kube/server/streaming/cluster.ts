// A one-node embedded cluster with pods for the streaming tests, its node answering through a
// ProcessPodStreams.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import { ProcessPodStreams } from './process-pod-streams.ts';

export interface StreamingCluster {
  cp: TestCluster;
  node: ProcessPodStreams;
  kubeconfig: string;
}

const PODS = `
apiVersion: v1
kind: Pod
metadata: {name: one, namespace: default}
spec:
  containers: [{name: app, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: two, namespace: default}
spec:
  containers: [{name: a, image: busybox}, {name: b, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: nowhere, namespace: default}
spec:
  nodeSelector: {missing: label}
  containers: [{name: app, image: busybox}]
`;

export async function startStreamingCluster(): Promise<StreamingCluster> {
  const cp = await startTestCluster({ port: 0, nodes: 1 });
  const manifest = join(cp.dir, 'pods.yaml');
  writeFileSync(manifest, PODS);
  const applied = await kubectl(cp.kubeconfigPath, ['apply', '-f', manifest]);
  if (applied.code !== 0) throw new Error(applied.stderr);
  await eventually(
    async () => {
      const r = await kubectl(cp.kubeconfigPath, [
        'get',
        'pods',
        'one',
        'two',
        '-o',
        'jsonpath={.items[*].status.phase}',
      ]);
      return r.stdout === 'Running Running';
    },
    { timeoutMs: 20_000, what: 'pods one and two Running' },
  );
  const node = new ProcessPodStreams();
  cp.internals.extensions.podStreams = node;
  return { cp, node, kubeconfig: cp.kubeconfigPath };
}
