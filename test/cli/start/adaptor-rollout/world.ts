// The world of the adaptor rollout test and bench: `peerpods start`'s stack (control plane, process
// runtime, every operator a process pod, the PeerPodConfig's adaptor DaemonSet) over the simulated
// cloud, a set of running peer pods, and the two ways an adaptor goes away under them: a rolling
// update of its DaemonSet and a SIGKILL of its process.
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { isNotFound } from '../../../../src/apimachinery/index.ts';
import { DaemonSets, Deployments, Pods, silentLogger } from '../../../../src/runtime/index.ts';
import type { KubeClient, KubeObject } from '../../../../src/runtime/index.ts';
import { ADAPTOR_DAEMONSET, PeerPods, STACK_NAMESPACE, peerPodManifest } from '../../../../src/peerpod/index.ts';
import { POD_VISIBLE_TMPDIR, startLocalStack } from '../../../../src/cli/start/local-stack.ts';
import type { LocalStack } from '../../../../src/cli/start/local-stack.ts';
import { killProcessesMentioning } from '../../../helpers/cli.ts';
import { containerProcesses } from '../../../helpers/fault-campaign/faults.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { podDisruption } from './disruption.ts';

/** Where the peer pods run. */
export const APP_NAMESPACE = 'default';
const ADAPTOR_SELECTOR = `name=${ADAPTOR_DAEMONSET}`;
const PEERPODCONFIG_CONTROLLER = 'peerpodconfig-controller';

export interface RolloutWorld {
  local: LocalStack;
  client: KubeClient;
  /** The simulated cloud's directory (SIMULATED_STATE_DIR). */
  cloudDir: string;
  kubeconfigPath: string;
  stop(): Promise<void>;
}

export async function startRolloutWorld(o: { nodes: number; limit: number }): Promise<RolloutWorld> {
  const dir = await mkdtemp(path.join(POD_VISIBLE_TMPDIR, 'peerpods-adaptor-rollout-'));
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  try {
    const local = await startLocalStack({
      kubeconfigPath,
      nodes: o.nodes,
      provider: 'simulated',
      stateDir: dir,
      logger: silentLogger(),
      limit: o.limit,
      // Quick enough that a VM the rollout orphaned would be swept (and show up as deleted) meanwhile.
      orphanGraceMs: 5_000,
      sweepIntervalMs: 2_000,
    });
    return {
      local,
      client: local.stack.client,
      cloudDir: local.stack.providerConfig.SIMULATED_STATE_DIR,
      kubeconfigPath,
      async stop() {
        try {
          await local.stop();
        } finally {
          killProcessesMentioning(dir);
          await rm(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    killProcessesMentioning(dir);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Creates `n` peer pods and waits until each is Running in a VM its PeerPod names. */
export async function runPeerPods(w: RolloutWorld, n: number, timeoutMs: number): Promise<string[]> {
  const names = Array.from({ length: n }, (_, i) => `peer-${i}`);
  await Promise.all(names.map((name) => w.client.create(Pods, peerPodManifest(name, undefined, APP_NAMESPACE))));
  await waitFor(
    async () => {
      const pods = (await w.client.listAll(Pods, { namespace: APP_NAMESPACE })).items;
      const pps = (
        await w.client.listAll<KubeObject & { spec?: { instanceID?: string } }>(PeerPods, {
          namespace: APP_NAMESPACE,
        })
      ).items;
      return (
        pods.length === n &&
        pods.every((p) => podDisruption(p) === undefined) &&
        pps.filter((pp) => pp.spec?.instanceID).length === n
      );
    },
    `${n} peer pods Running in their VMs`,
    timeoutMs,
    200,
  );
  return names;
}

type DaemonSet = KubeObject & {
  metadata: { generation?: number };
  spec: { template: { spec: { containers: Array<{ image: string }> } } };
  status?: {
    observedGeneration?: number;
    desiredNumberScheduled?: number;
    updatedNumberScheduled?: number;
    numberAvailable?: number;
  };
};

export async function adaptorDaemonSet(client: KubeClient): Promise<DaemonSet> {
  return client.get<DaemonSet>(DaemonSets, ADAPTOR_DAEMONSET, STACK_NAMESPACE);
}

export async function adaptorPods(client: KubeClient): Promise<KubeObject[]> {
  return (await client.listAll(Pods, { namespace: STACK_NAMESPACE, labelSelector: ADAPTOR_SELECTOR })).items;
}

function ready(p: KubeObject): boolean {
  const conds = (p.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions;
  return conds?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/**
 * The operator upgrade that rolls the adaptor, as a release bump does: the PeerPodConfig
 * controller's `--adaptor-image` changes (its own Deployment rolls), and it writes the new image into
 * the DaemonSet's pod template.
 */
export async function setAdaptorImage(client: KubeClient, image: string): Promise<void> {
  const d = await client.get<
    KubeObject & { spec: { template: { spec: { containers: Array<{ name: string; args?: string[] }> } } } }
  >(Deployments, PEERPODCONFIG_CONTROLLER, STACK_NAMESPACE);
  const c = d.spec.template.spec.containers[0];
  const args = (c.args ?? []).map((a) => (a.startsWith('--adaptor-image=') ? `--adaptor-image=${image}` : a));
  await client.patch(
    Deployments,
    PEERPODCONFIG_CONTROLLER,
    STACK_NAMESPACE,
    { spec: { template: { spec: { containers: [{ name: c.name, args }] } } } },
    'strategic',
  );
}

export interface RolloutTiming {
  /** The DaemonSet's template changed (its generation moved past the one before). */
  templateChangedAt: number;
  /** Every node runs a new, Ready adaptor pod and no old one is left. */
  doneAt: number;
  /** How many adaptor pods were replaced. */
  replaced: number;
}

/**
 * Waits for a rollout of the adaptor DaemonSet that starts after `before` (its generation then, its
 * pods then): the generation moves, the status reports every node updated and available (as
 * `kubectl rollout status` reads it), and every live adaptor pod is a new one, Ready.
 */
export async function waitForAdaptorRollout(
  client: KubeClient,
  before: { generation: number; podUids: Set<string> },
  timeoutMs: number,
): Promise<RolloutTiming> {
  let templateChangedAt = 0;
  let replaced = 0;
  await waitFor(
    async () => {
      const ds = await adaptorDaemonSet(client);
      if ((ds.metadata.generation ?? 0) <= before.generation) return false;
      templateChangedAt ||= Date.now();
      const st = ds.status ?? {};
      const desired = st.desiredNumberScheduled ?? 0;
      if ((st.observedGeneration ?? 0) < (ds.metadata.generation ?? 0)) return false;
      if ((st.updatedNumberScheduled ?? 0) < desired || (st.numberAvailable ?? 0) < desired) return false;
      const pods = await adaptorPods(client);
      replaced = pods.filter((p) => !before.podUids.has(p.metadata.uid as string)).length;
      return (
        pods.length === desired && replaced === desired && pods.every((p) => !p.metadata.deletionTimestamp && ready(p))
      );
    },
    'the adaptor DaemonSet rolled out',
    timeoutMs,
    100,
  );
  return { templateChangedAt, doneAt: Date.now(), replaced };
}

export async function rolloutBaseline(client: KubeClient): Promise<{ generation: number; podUids: Set<string> }> {
  const ds = await adaptorDaemonSet(client);
  const pods = await adaptorPods(client);
  return { generation: ds.metadata.generation ?? 0, podUids: new Set(pods.map((p) => p.metadata.uid as string)) };
}

function restartCount(p: KubeObject): number {
  const cs = (p.status as { containerStatuses?: Array<{ restartCount?: number }> } | undefined)?.containerStatuses;
  return cs?.[0]?.restartCount ?? 0;
}

/**
 * SIGKILLs the adaptor process of `node` and waits until its container runs again, Ready, in the
 * same pod (restartPolicy Always). Returns the pod and the PIDs killed.
 */
export async function sigkillAdaptor(
  client: KubeClient,
  node: string,
  timeoutMs: number,
): Promise<{ pod: string; killed: number[]; restartCount: number }> {
  const pod = (await adaptorPods(client)).find(
    (p) => (p.spec as { nodeName?: string }).nodeName === node && !p.metadata.deletionTimestamp,
  );
  if (!pod) throw new Error(`no adaptor pod on ${node}`);
  const uid = pod.metadata.uid as string;
  const killed = containerProcesses(uid);
  if (killed.length === 0) throw new Error(`no process of adaptor pod ${pod.metadata.name}`);
  for (const pid of killed) process.kill(pid, 'SIGKILL');
  const name = pod.metadata.name as string;
  let now: KubeObject | undefined;
  await waitFor(
    async () => {
      try {
        now = await client.get(Pods, name, STACK_NAMESPACE);
      } catch (err) {
        if (isNotFound(err)) throw new Error(`adaptor pod ${name} was deleted instead of restarted`);
        throw err;
      }
      const alive = new Set(containerProcesses(uid));
      return (
        now.metadata.uid === uid &&
        restartCount(now) > restartCount(pod) &&
        ready(now) &&
        killed.every((pid) => !alive.has(pid))
      );
    },
    `adaptor pod ${name} restarted and Ready`,
    timeoutMs,
    100,
  );
  return { pod: name, killed, restartCount: restartCount(now as KubeObject) };
}
