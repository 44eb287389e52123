// The faults of the campaign: one operator pod of the stack killed, in one of two ways a node or an
// operator sees in real life.
// - `sigkill`: SIGKILL of the pod's processes (the container dies; the kubelet restarts it in the same
//   pod, restartPolicy Always). Not the QEMU VMs an adaptor started: they inherit its environment but
//   run detached, as a cloud's VMs outlive the adaptor that asked for them. Aimed only at a container that has not restarted yet: kube restarts a
//   container at once the first time and then backs off 10 s, 20 s, … (CrashLoopBackOff), which would
//   only make the campaign wait; a pod already restarted is force-deleted instead.
// - `delete`: the pod force-deleted (grace 0): the object is gone at once, the kubelet kills its
//   processes (SIGTERM, SIGKILL 2 s later) while the DaemonSet or Deployment starts a replacement,
//   so for a moment two adaptors of one node, or two controllers, can run side by side.
import { isNotFound } from '../../../src/apimachinery/index.ts';
import { Pods } from '../../../src/runtime/index.ts';
import type { KubeClient, KubeObject } from '../../../src/runtime/index.ts';
import { STACK_NAMESPACE } from '../../../src/peerpod/index.ts';
import { readFileSync } from 'node:fs';
import { processesMentioning } from '../cli.ts';

export const COMPONENTS = ['adaptor', 'controller', 'webhook'] as const;
export type Component = (typeof COMPONENTS)[number];
export type KillMode = 'sigkill' | 'delete';

/** The labels of the deployed manifests (config/default and the PeerPodConfig's DaemonSet). */
const SELECTORS: Record<Component, string> = {
  adaptor: 'name=peerpodconfig-ctrl-caa-daemon',
  controller: 'control-plane=peerpod-controller',
  webhook: 'app=peer-pods-webhook',
};

/** A fault as the seeded plan states it; which pod it hits is decided when it fires. */
export interface Fault {
  component: Component;
  mode: KillMode;
  /** The adaptor's node (index into the node list). */
  node: number;
  /** Picks among several replicas (webhook), in [0, 1). */
  pick: number;
  /** When it fires, after the cycle's writes start. */
  atMs: number;
}

export interface FaultOutcome {
  component: Component;
  /** What was done; `skipped` when no pod of the component was up to be killed. */
  done: KillMode | 'skipped';
  pod?: string;
}

interface PodObject extends KubeObject {
  spec?: { nodeName?: string };
  status?: { containerStatuses?: Array<{ restartCount?: number }> };
}

export async function injectFault(client: KubeClient, f: Fault, nodes: string[]): Promise<FaultOutcome> {
  const node = nodes[f.node % nodes.length];
  const pods = (
    await client.listAll<PodObject>(Pods, {
      namespace: STACK_NAMESPACE,
      labelSelector: SELECTORS[f.component],
      ...(f.component === 'adaptor' ? { fieldSelector: `spec.nodeName=${node}` } : {}),
    })
  ).items.filter((p) => !p.metadata.deletionTimestamp);
  if (pods.length === 0) return { component: f.component, done: 'skipped' };
  const pod = pods.sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)))[
    Math.floor(f.pick * pods.length)
  ];
  const name = pod.metadata.name as string;
  const restarted = (pod.status?.containerStatuses ?? []).some((c) => (c.restartCount ?? 0) > 0);
  if (f.mode === 'sigkill' && !restarted) {
    const pids = containerProcesses(pod.metadata.uid as string);
    if (pids.length === 0) return { component: f.component, done: 'skipped', pod: name };
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Exited meanwhile.
      }
    }
    return { component: f.component, done: 'sigkill', pod: name };
  }
  try {
    await client.delete(Pods, name, STACK_NAMESPACE, { gracePeriodSeconds: 0 });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    return { component: f.component, done: 'skipped', pod: name };
  }
  return { component: f.component, done: 'delete', pod: name };
}

/** The processes of a pod's containers (the kubelet gives them the pod's directory), less its VMs. */
export function containerProcesses(podUid: string): number[] {
  return processesMentioning(`/pods/${podUid}/`).filter((pid) => {
    try {
      return !readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('-qmp');
    } catch {
      return false;
    }
  });
}
