// Child process of bench/pool.ts: a pod start's parts as a node process sees them — from its own
// process over HTTPS, not from the process the API server runs in.
// 1. Times N pairs of the pod's Running status patch and one PeerPod create, one at a time.
// 2. Watches the pod and prints `{"ready":true}`; then, for each change the parent makes (label
//    `bench-hop=<i>`), prints `{"hop":i,"at":<epoch ms>}` when it arrives: the watch hop a node takes
//    to see its pod bound. The parent times each against its write's answer.
// 3. When its stdin closes, prints the timings of 1 as JSON and exits.
//   POOL_WRITES_KUBECONFIG  kubeconfig file of the stack
//   POOL_WRITES_POD         <namespace>/<name> of a Running peer pod
//   POOL_WRITES_PEERPOD_NS  where the PeerPods are written
//   POOL_WRITES_PROVIDER    spec.cloudProvider of those PeerPods
//   POOL_WRITES_N           how many of each
import { readFileSync } from 'node:fs';
import type { KubeObject } from '../src/runtime/index.ts';
import { KubeClient, Pods, silentLogger } from '../src/runtime/index.ts';
import { PeerPods } from '../src/peerpod/api/index.ts';
import type { PeerPod } from '../src/peerpod/api/index.ts';
import { runningStatus, writeRunningStatus } from '../src/peerpod/adaptor/pod-status.ts';
import { nowMs } from './common.ts';

const env = (k: string): string => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const client = KubeClient.fromKubeconfigString(readFileSync(env('POOL_WRITES_KUBECONFIG'), 'utf8'), {
  logger: silentLogger(),
});
const [ns, name] = env('POOL_WRITES_POD').split('/') as [string, string];
const ppNs = env('POOL_WRITES_PEERPOD_NS');
const n = Number(env('POOL_WRITES_N'));
const status: number[] = [];
const peerPod: number[] = [];
for (let i = 0; i < n; i++) {
  const pod = await client.get(Pods, name, ns);
  const st = pod.status as { podIP?: string; hostIP?: string };
  let t = nowMs();
  await writeRunningStatus(
    client,
    pod,
    runningStatus(pod, st.podIP ?? '', st.hostIP ?? '', `bench-${i}`),
    AbortSignal.timeout(30_000),
  );
  status.push(nowMs() - t);
  t = nowMs();
  await client.create<PeerPod>(PeerPods, {
    apiVersion: 'confidentialcontainers.org/v1alpha1',
    kind: 'PeerPod',
    metadata: { name: `bench-child-write-${i}`, namespace: ppNs },
    spec: { cloudProvider: env('POOL_WRITES_PROVIDER') },
  });
  peerPod.push(nowMs() - t);
  await client.delete(PeerPods, `bench-child-write-${i}`, ppNs);
}
const abort = new AbortController();
const epochMs = (): number => performance.timeOrigin + performance.now();
const watching = (async () => {
  const events = client.watch<KubeObject>(Pods, {
    namespace: ns,
    fieldSelector: `metadata.name=${name}`,
    signal: abort.signal,
  });
  let ready = false;
  for await (const ev of events) {
    const at = epochMs();
    const hop = ev.object.metadata?.labels?.['bench-hop'];
    if (!ready) {
      ready = true;
      process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
    }
    if (hop !== undefined && ev.type === 'MODIFIED')
      process.stdout.write(`${JSON.stringify({ hop: Number(hop), at })}\n`);
  }
})().catch(() => undefined);
process.stdin.resume();
await new Promise((resolve) => process.stdin.on('end', resolve));
abort.abort();
await watching;
client.close();
process.stdout.write(`${JSON.stringify({ status, peerPod })}\n`);
