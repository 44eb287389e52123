// Shared by the PeerPod controller suites: an embedded control plane with the CRD installed, a
// controller on a manager, and the adaptor's side of the protocol (Pod, VM, PeerPod) played by tests.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import {
  ConfigMaps,
  Events,
  KubeClient,
  Manager,
  Namespaces,
  Pods,
  Secrets,
  installCrds,
  silentLogger,
} from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { PEERPOD_FINALIZER, PeerPods, allCrds } from '../../../src/peerpod/api/index.ts';
import type { PeerPod } from '../../../src/peerpod/api/index.ts';
import { setupPeerPodController } from '../../../src/peerpod/controllers/index.ts';
import type { PeerPodController, PeerPodControllerOptions } from '../../../src/peerpod/controllers/index.ts';
import { cmdlineArgs, findPidsWithArg } from '../../../src/peerpod/providers/procfs.ts';
import { startTestCluster, eventually as poll } from '../../helpers/control-plane.ts';
import type { TestCluster } from '../../helpers/control-plane.ts';
import { kubeconfigAs } from '../../helpers/generated-rbac.ts';

type Falsy = undefined | null | false | 0 | '';

/** Polls until `check` returns something truthy (typed without the falsy cases), with a deadline. */
export function eventually<T>(
  check: () => T | Falsy | Promise<T | Falsy>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  return poll(check, opts) as Promise<T>;
}
export const NS = 'peerpods-system';

export interface Env {
  cluster: TestCluster;
  client: KubeClient;
  clusterUid: string;
  stop(): Promise<void>;
}

export async function startEnv(): Promise<Env> {
  const cluster = await startTestCluster();
  const client = KubeClient.fromKubeconfigString(cluster.kubeconfig, {
    metricsRegistry: null,
    logger: silentLogger(),
  });
  await installCrds(client, allCrds(), { fieldManager: 'peerpods' });
  await client.create(Namespaces, { metadata: { name: NS } });
  const ks = await client.get(Namespaces, 'kube-system');
  return {
    cluster,
    client,
    clusterUid: ks.metadata.uid as string,
    async stop() {
      client.close();
      await cluster.stop();
    },
  };
}

export interface Running {
  manager: Manager;
  handle: PeerPodController;
  registry: Registry;
  stop(): Promise<void>;
}

/** `asUser`: the controller acts as that identity (impersonated) instead of the cluster's admin. */
export async function startController(
  env: Env,
  opts: Partial<PeerPodControllerOptions> = {},
  managerOpts: { gracefulShutdownTimeoutMs?: number; asUser?: string } = {},
): Promise<Running> {
  const registry = new Registry();
  const { asUser, ...rest } = managerOpts;
  const kubeconfig = asUser ? kubeconfigAs(env.cluster.kubeconfig, asUser) : env.cluster.kubeconfig;
  const client = KubeClient.fromKubeconfigString(kubeconfig, {
    metricsRegistry: registry,
    logger: silentLogger(),
  });
  const manager = new Manager({
    client,
    logger: silentLogger(),
    metricsRegistry: registry,
    server: false,
    handleSignals: false,
    ...rest,
  });
  const handle = setupPeerPodController(manager, { namespace: NS, ...opts });
  const running = manager.start();
  await manager.elected();
  let stopped = false;
  return {
    manager,
    handle,
    registry,
    async stop() {
      if (stopped) return;
      stopped = true;
      await manager.stop();
      await running;
      client.close();
    },
  };
}

export async function setSettings(
  env: Env,
  data: Record<string, string>,
  secret: Record<string, string> = {},
): Promise<void> {
  const cm = { metadata: { name: 'peer-pods-cm', namespace: NS }, data };
  const sec = {
    metadata: { name: 'peer-pods-secret', namespace: NS },
    data: Object.fromEntries(Object.entries(secret).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
  for (const [type, obj] of [
    [ConfigMaps, cm],
    [Secrets, sec],
  ] as const) {
    try {
      const cur = await env.client.get(type, obj.metadata.name, NS);
      await env.client.update(type, { ...cur, data: obj.data });
    } catch {
      await env.client.create(type, obj);
    }
  }
}

let podSeq = 0;

export async function createPod(env: Env, name = `pod-${++podSeq}`, namespace = 'default'): Promise<KubeObject> {
  return env.client.create(Pods, {
    metadata: { name, namespace },
    spec: { runtimeClassName: 'kata-remote', containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.9' }] },
  });
}

/** What upstream's OwnPeerPod writes: `<pod>-resource-<rand5>`, controller ref to the Pod, our finalizer. */
export async function createPeerPod(
  env: Env,
  pod: KubeObject | undefined,
  cloudProvider: string,
  instanceID: string,
  namespace = pod?.metadata.namespace ?? 'default',
): Promise<PeerPod> {
  const rand = Math.random().toString(36).slice(2, 7);
  return env.client.create<PeerPod>(PeerPods, {
    apiVersion: 'confidentialcontainers.org/v1alpha1',
    kind: 'PeerPod',
    metadata: {
      name: `${pod?.metadata.name ?? 'lonely'}-resource-${rand}`,
      namespace,
      finalizers: [PEERPOD_FINALIZER],
      ...(pod
        ? {
            ownerReferences: [
              {
                apiVersion: 'v1',
                kind: 'Pod',
                name: pod.metadata.name as string,
                uid: pod.metadata.uid as string,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec: { instanceID, cloudProvider },
  });
}

/** Upstream's ReleasePeerPod: a JSON patch removing every finalizer. */
export async function adaptorRelease(env: Env, pp: PeerPod): Promise<void> {
  await env.client.patch(
    PeerPods,
    pp.metadata.name as string,
    pp.metadata.namespace,
    [{ op: 'remove', path: '/metadata/finalizers' }],
    'json',
  );
}

export async function peerPodGone(env: Env, pp: PeerPod): Promise<boolean> {
  try {
    await env.client.get(PeerPods, pp.metadata.name as string, pp.metadata.namespace);
    return false;
  } catch (err) {
    return (err as { code?: number }).code === 404;
  }
}

export async function getPeerPod(env: Env, pp: PeerPod): Promise<PeerPod> {
  return env.client.get<PeerPod>(PeerPods, pp.metadata.name as string, pp.metadata.namespace);
}

export interface CoreEvent extends KubeObject {
  reason?: string;
  type?: string;
  message?: string;
  involvedObject?: { kind?: string; name?: string; uid?: string };
}

export async function eventsFor(env: Env, obj: KubeObject): Promise<CoreEvent[]> {
  const ns = obj.metadata.namespace ?? 'default';
  const list = await env.client.list<CoreEvent>(Events, { namespace: ns });
  return list.items.filter((e) => e.involvedObject?.uid === obj.metadata.uid);
}

export async function metricValue(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const m = registry.getSingleMetric(name);
  if (!m) return 0;
  const data = await m.get();
  let sum = 0;
  for (const v of data.values) {
    if (Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want)) sum += v.value;
  }
  return sum;
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `${prefix}-`));
}

/** QEMU processes whose QMP socket lives under `dir`. */
export async function qemuUnder(dir: string): Promise<number[]> {
  const out: number[] = [];
  for (const pid of await findPidsWithArg('-qmp')) {
    const args = (await cmdlineArgs(pid)) ?? [];
    if (args.some((a) => a.includes(dir))) out.push(pid);
  }
  return out;
}

/** Kills whatever QEMU a suite left behind under `dir`, then removes it. */
export async function cleanupQemu(dir: string): Promise<void> {
  for (const pid of await qemuUnder(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await eventually(async () => (await qemuUnder(dir)).length === 0, { timeoutMs: 5000, what: 'QEMU to exit' });
  await rm(dir, { recursive: true, force: true });
}
