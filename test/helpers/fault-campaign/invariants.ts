// What must hold once a fault campaign's cluster has settled, checked against what the cluster says
// (pods, PeerPods) and what the machine runs (QEMU processes under the stack's state directory, found
// through /proc: the provider's own records could be wrong, and a VM it lost track of still runs).
import { Pods } from '../../../src/runtime/index.ts';
import type { KubeClient, KubeObject } from '../../../src/runtime/index.ts';
import { PEERPOD_FINALIZER, PeerPods, qemuProcessesUnder } from '../../../src/peerpod/index.ts';

export interface PodState {
  name: string;
  uid: string;
  phase: string;
  terminating: boolean;
}

export interface PeerPodState {
  name: string;
  ownerUid: string;
  instanceID: string;
  finalizer: boolean;
}

export interface VmState {
  id: string;
  name: string;
  pid: number;
}

/** One look at the cluster and the machine. */
export interface Census {
  pods: PodState[];
  peerPods: PeerPodState[];
  vms: VmState[];
}

/** Each entry names the object and what is wrong with it. */
export interface Violations {
  /** VMs no PeerPod of a live pod names. */
  leaked: string[];
  /** VMs named twice, or a pod with more than one VM. */
  duplicates: string[];
  /** PeerPods still holding `peer.pod/finalizer` whose pod is gone. */
  stuckFinalizers: string[];
  /** Pods Terminating, or that should run and are not Running on a live VM. */
  stuckPods: string[];
}

export const VIOLATION_KINDS = ['leaked', 'duplicates', 'stuckFinalizers', 'stuckPods'] as const;

export function noViolations(v: Violations): boolean {
  return VIOLATION_KINDS.every((k) => v[k].length === 0);
}

export function describeViolations(v: Violations): string {
  return VIOLATION_KINDS.filter((k) => v[k].length > 0)
    .map((k) => `${k}: ${v[k].join('; ')}`)
    .join('\n');
}

/** The value of `flag` in a QEMU command line. */
const argAfter = (args: string[], flag: string): string => args[args.indexOf(flag) + 1] ?? '';

export async function takeCensus(
  client: KubeClient,
  o: { namespace: string; labelSelector: string; stateDir: string },
): Promise<Census> {
  const [pods, peerPods, processes] = await Promise.all([
    client.listAll(Pods, { namespace: o.namespace, labelSelector: o.labelSelector }),
    client.listAll(PeerPods),
    qemuProcessesUnder(o.stateDir),
  ]);
  return {
    pods: pods.items.map((p) => ({
      name: p.metadata.name as string,
      uid: p.metadata.uid as string,
      phase: (p.status as { phase?: string } | undefined)?.phase ?? '',
      terminating: !!p.metadata.deletionTimestamp,
    })),
    peerPods: peerPods.items.map((pp: KubeObject) => ({
      name: pp.metadata.name as string,
      ownerUid: pp.metadata.ownerReferences?.[0]?.uid ?? '',
      instanceID: (pp.spec as { instanceID?: string } | undefined)?.instanceID ?? '',
      finalizer: (pp.metadata.finalizers ?? []).includes(PEERPOD_FINALIZER),
    })),
    vms: processes.map((p) => ({ id: argAfter(p.args, '-uuid'), name: argAfter(p.args, '-name'), pid: p.pid })),
  };
}

/**
 * The invariants of a settled cluster: every VM is named by exactly one PeerPod of a live pod, no
 * PeerPod holds its finalizer for a pod that is gone, no pod is Terminating, and each pod of `running`
 * is Running on a VM that exists. VMs in `ignoredVms` (leaks already reported) are not counted again.
 */
export function findViolations(c: Census, running: ReadonlySet<string>, ignoredVms: ReadonlySet<string>): Violations {
  const v: Violations = { leaked: [], duplicates: [], stuckFinalizers: [], stuckPods: [] };
  const podByUid = new Map(c.pods.map((p) => [p.uid, p]));
  const liveVms = c.vms.filter((vm) => !ignoredVms.has(vm.id));
  const liveIds = new Set(liveVms.map((vm) => vm.id));
  const namedBy = new Map<string, string[]>();
  const vmsOfPod = new Map<string, Set<string>>();
  for (const pp of c.peerPods) {
    const pod = podByUid.get(pp.ownerUid);
    if (!pod && pp.finalizer) v.stuckFinalizers.push(`PeerPod ${pp.name} (pod ${pp.ownerUid} gone)`);
    if (!pod || pod.terminating || !pp.instanceID) continue;
    namedBy.set(pp.instanceID, [...(namedBy.get(pp.instanceID) ?? []), pp.name]);
    if (liveIds.has(pp.instanceID)) vmsOfPod.set(pod.name, (vmsOfPod.get(pod.name) ?? new Set()).add(pp.instanceID));
  }
  const byVmName = new Map<string, string[]>();
  for (const vm of liveVms) {
    const names = namedBy.get(vm.id);
    if (!names) v.leaked.push(`VM ${vm.id} (${vm.name}, pid ${vm.pid})`);
    else if (names.length > 1) v.duplicates.push(`VM ${vm.id} named by PeerPods ${names.join(', ')}`);
    byVmName.set(vm.name, [...(byVmName.get(vm.name) ?? []), vm.id]);
  }
  for (const [name, ids] of byVmName)
    if (ids.length > 1) v.duplicates.push(`${ids.length} VMs named ${name}: ${ids.join(', ')}`);
  for (const [pod, ids] of vmsOfPod) if (ids.size > 1) v.duplicates.push(`pod ${pod} has VMs ${[...ids].join(', ')}`);
  for (const p of c.pods) if (p.terminating) v.stuckPods.push(`pod ${p.name} Terminating`);
  for (const name of running) {
    const pod = c.pods.find((p) => p.name === name && !p.terminating);
    if (!pod) v.stuckPods.push(`pod ${name} missing`);
    else if (pod.phase !== 'Running') v.stuckPods.push(`pod ${name} ${pod.phase || 'without a phase'}`);
    else if (!vmsOfPod.has(name)) v.stuckPods.push(`pod ${name} Running without a VM`);
  }
  return v;
}
