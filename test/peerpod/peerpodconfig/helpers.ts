// Shared by the PeerPodConfig suites: an embedded control plane with simulated worker nodes and the
// CRD installed, and the controller on its own manager.
import { Registry } from 'prom-client';
import { KubeClient, Manager, Namespaces, Nodes, installCrds, silentLogger } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { PeerPodConfigs, peerPodConfigCrd } from '../../../src/peerpod/api/index.ts';
import type { PeerPodConfig, PeerPodConfigSpec } from '../../../src/peerpod/api/index.ts';
import { setupPeerPodConfigController } from '../../../src/peerpod/controllers/peerpodconfig/index.ts';
import type { PeerPodConfigControllerOptions } from '../../../src/peerpod/controllers/peerpodconfig/index.ts';
import { startTestCluster, eventually as poll } from '../../helpers/control-plane.ts';
import { kubeconfigAs } from '../../helpers/generated-rbac.ts';
import type { TestCluster } from '../../helpers/control-plane.ts';

export const NS = 'peerpods-system';
export const VM = 'kata.peerpods.io/vm';

type Falsy = undefined | null | false | 0 | '';

export function eventually<T>(
  check: () => T | Falsy | Promise<T | Falsy>,
  opts: { timeoutMs?: number; what?: string } = {},
): Promise<T> {
  return poll(check, opts) as Promise<T>;
}

export interface Env {
  cluster: TestCluster;
  client: KubeClient;
  stop(): Promise<void>;
}

export async function startEnv(nodes = 2): Promise<Env> {
  const cluster = await startTestCluster({ nodes });
  const client = KubeClient.fromKubeconfigString(cluster.kubeconfig, { metricsRegistry: null, logger: silentLogger() });
  await installCrds(client, [peerPodConfigCrd()], { fieldManager: 'peerpods' });
  await client.create(Namespaces, { metadata: { name: NS } });
  return {
    cluster,
    client,
    async stop() {
      client.close();
      await cluster.stop();
    },
  };
}

export interface Running {
  manager: Manager;
  registry: Registry;
  stop(): Promise<void>;
}

/** `asUser`: run as that identity (impersonated) instead of the cluster's admin. */
export async function startController(
  env: Env,
  opts: PeerPodConfigControllerOptions = {},
  asUser?: string,
): Promise<Running> {
  const registry = new Registry();
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
  });
  setupPeerPodConfigController(manager, opts);
  const running = manager.start();
  await manager.elected();
  let stopped = false;
  return {
    manager,
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

export async function createConfig(env: Env, name: string, spec: PeerPodConfigSpec): Promise<PeerPodConfig> {
  return env.client.create<PeerPodConfig>(PeerPodConfigs, {
    apiVersion: 'confidentialcontainers.org/v1alpha1',
    kind: 'PeerPodConfig',
    metadata: { name, namespace: NS },
    spec,
  });
}

interface NodeObject extends KubeObject {
  status?: { capacity?: Record<string, string>; allocatable?: Record<string, string> };
}

/** `node -> vms` for every node that has the resource in capacity (allocatable must agree). */
export async function vmCapacity(env: Env): Promise<Record<string, string>> {
  const { items } = await env.client.list<NodeObject>(Nodes);
  const out: Record<string, string> = {};
  for (const n of items) {
    const cap = n.status?.capacity?.[VM];
    if (cap === undefined) continue;
    if (n.status?.allocatable?.[VM] !== cap) throw new Error(`${n.metadata.name}: allocatable differs from capacity`);
    out[n.metadata.name as string] = cap;
  }
  return out;
}

/** Polls until the nodes' capacity equals `want` exactly. */
export async function waitForCapacity(env: Env, want: Record<string, string>, what = JSON.stringify(want)) {
  let last: Record<string, string> = {};
  try {
    await eventually(
      async () => {
        last = await vmCapacity(env);
        return JSON.stringify(sorted(last)) === JSON.stringify(sorted(want));
      },
      { what, timeoutMs: 15_000 },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; capacity: ${JSON.stringify(last)}`);
  }
}

function sorted(r: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)));
}
