// Child process of bench/pool.ts: the node side of a pod start whose sandbox is ready at once — the
// warm path's reference, measured whole. Built as the adaptor is (a Manager, a controller over the
// node's pods by field selector, one reconcile per pod), it reports each bound pod of its
// RuntimeClass Running with the adaptor's own status write (pod and host IP included), and waits for
// its cache to hold it, as the adaptor does; a deleted one it finishes, as a kubelet would. What a
// warm start adds to this is its claim (one PeerPod write) and choosing the spare. For pods of a
// second RuntimeClass it makes one PeerPod write first — the pod's PeerPod, created as the adaptor's
// cold path creates it, not waited for in its cache, as a claim is not — so that pod start is
// "scheduling plus one PeerPod write" measured whole, the write made where and when a claim is made.
// Prints `{"ready":true}` once its caches are synced; exits when its stdin closes.
//   POOL_INSTANT_KUBECONFIG            kubeconfig file of the stack
//   POOL_INSTANT_NODES                 the nodes it stands in for, comma-separated
//   POOL_INSTANT_RUNTIME_CLASS         the RuntimeClass of its pods reported Running at once
//   POOL_INSTANT_WRITE_RUNTIME_CLASS   the RuntimeClass of its pods reported Running after one PeerPod write
//   POOL_INSTANT_PROVIDER              spec.cloudProvider of those PeerPods
import { readFileSync } from 'node:fs';
import {
  ControllerBuilder,
  KubeClient,
  Manager,
  Pods,
  isAlreadyExists,
  isConflict,
  isNotFound,
  silentLogger,
  waitForCache,
} from '../src/runtime/index.ts';
import type { KubeObject } from '../src/runtime/index.ts';
import { PeerPods } from '../src/peerpod/api/index.ts';
import type { PeerPod } from '../src/peerpod/api/index.ts';
import { newPeerPod } from '../src/peerpod/adaptor/peerpod-record.ts';
import { reportsRunning, runningStatus, writeRunningStatus } from '../src/peerpod/adaptor/pod-status.ts';

const env = (k: string): string => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const runtimeClass = env('POOL_INSTANT_RUNTIME_CLASS');
const writeRuntimeClass = env('POOL_INSTANT_WRITE_RUNTIME_CLASS');
const provider = env('POOL_INSTANT_PROVIDER');
const logger = silentLogger();
const client = KubeClient.fromKubeconfigString(readFileSync(env('POOL_INSTANT_KUBECONFIG'), 'utf8'), { logger });
const manager = new Manager({ client, logger, leaderElection: false, server: false, handleSignals: false });
const classOf = (p: KubeObject): string | undefined =>
  (p.spec as { runtimeClassName?: string } | undefined)?.runtimeClassName;
const ours = (p: KubeObject): boolean => classOf(p) === runtimeClass || classOf(p) === writeRuntimeClass;

const caches = env('POOL_INSTANT_NODES')
  .split(',')
  .map((node) => {
    const scope = { fieldSelector: `spec.nodeName=${node}` };
    const pods = manager.informerFor<KubeObject>(Pods, scope);
    new ControllerBuilder(manager, `instant-node-${node}`)
      .for(Pods, { scope, predicates: [{ create: ours, update: (o, n) => ours(o) || ours(n), delete: ours }] })
      .complete(async (req, ctx) => {
        const pod = pods.get(req.namespace, req.name);
        if (!pod) return;
        if (pod.metadata.deletionTimestamp) {
          // Nothing to stop: finish the deletion, as a kubelet does once the pod's containers are gone.
          try {
            await client.delete(Pods, pod.metadata.name as string, pod.metadata.namespace, {
              gracePeriodSeconds: 0,
              preconditions: { uid: pod.metadata.uid as string },
              signal: ctx.signal,
            });
          } catch (err) {
            if (!isNotFound(err) && !isConflict(err)) throw err;
          }
          return;
        }
        if (reportsRunning(pod)) return;
        if (classOf(pod) === writeRuntimeClass) {
          // No finalizer: nothing here has a VM to delete; the garbage collector takes it with its pod.
          const want = newPeerPod(pod, provider, node);
          const { finalizers: _none, ...metadata } = want.metadata;
          try {
            await client.create<PeerPod>(PeerPods, { ...want, metadata }, { signal: ctx.signal });
          } catch (err) {
            if (!isAlreadyExists(err)) throw err;
          }
        }
        const written = await writeRunningStatus(
          client,
          pod,
          runningStatus(pod, '10.88.0.2', '127.244.0.1', pod.metadata.uid as string),
          ctx.signal,
        );
        await waitForCache(pods, written);
      });
    return pods;
  });

const done = manager.start();
await Promise.all(caches.map((c) => c.waitForSync(undefined, 60_000)));
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
process.stdin.resume();
await new Promise((resolve) => process.stdin.on('end', resolve));
await manager.stop();
await done.catch(() => undefined);
client.close();
