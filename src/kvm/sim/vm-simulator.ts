// Simulated VMs for node pods, for tests, examples and local runs: what the containers of a real
// node pod do, played against the API instead of QEMU.
//   - k8s-endpoint-updater: once the pod runs, write the VM's IP into the pod annotation
//     endpoint.kvm.giantswarm.io/ip;
//   - the VM boots from its cloud-config ConfigMap and its kubelet registers a workload-cluster Node
//     named after the pod, with the labels and taints the user data asks for and the VM's IP as
//     InternalIP (the Node carries peerpods.io/simulated=true, so an embedded workload control
//     plane runs its pods and heartbeats);
//   - shutdown-deferrer and qemu-shutdown: a deleted pod's preStop hook returns once the pod is
//     marked drained, the VM shuts down and the containers exit (here: a grace-0 delete);
//   - when the pod's containers stop (or the pod is gone), the VM is off: its Node turns NotReady
//     (Unknown, as the node lifecycle controller reports a silent kubelet). Removing the Node is the
//     operator's job (the deleter), as in a real cluster.
import { createHash } from 'node:crypto';
import { formatTime } from '../../apimachinery/time/index.ts';
import {
  ConfigMaps,
  ControllerBuilder,
  Nodes,
  Pods,
  isAlreadyExists,
  isConflict,
  isNotFound,
} from '../../runtime/index.ts';
import type { KubeClient, KubeObject, Manager, Request } from '../../runtime/index.ts';
import { Annotations, Labels, POD_WATCHER } from '../api/labels.ts';
import { nodeLabelsFromUserData, nodeTaintsFromUserData } from '../handlers/cluster/ignition.ts';
import type { Pod } from '../pods.ts';

export const SIMULATED_NODE_LABEL = 'peerpods.io/simulated';

export interface VmSimulatorOptions {
  /** The workload cluster's client for a cluster ID (undefined: that cluster is not simulated). */
  workloadClient(clusterId: string): KubeClient | undefined;
  /** Operator version label the node pods carry. */
  operatorVersion: string;
}

/** A stable, cluster-unique VM address derived from the pod's identity: 10.<a>.<b>.<c>. */
export function vmIp(pod: Pod): string {
  const h = createHash('sha256')
    .update(`${pod.metadata.namespace}/${pod.metadata.name}/${pod.metadata.uid ?? ''}`)
    .digest();
  return `10.${128 + (h[0] % 64)}.${h[1]}.${1 + (h[2] % 253)}`;
}

function running(pod: Pod): boolean {
  if (pod.status?.phase !== 'Running') return false;
  return (pod.status.containerStatuses ?? []).some((c) => c.state?.running);
}

export class VmSimulator {
  constructor(
    private readonly mc: KubeClient,
    private readonly opts: VmSimulatorOptions,
  ) {}

  /** Registers the simulator as a controller over node pods on `manager`. */
  static setup(manager: Manager, opts: VmSimulatorOptions): VmSimulator {
    const sim = new VmSimulator(manager.client, opts);
    const scope = {
      labelSelector: `${Labels.podWatcher}=${POD_WATCHER},${Labels.operatorVersion}=${opts.operatorVersion}`,
    };
    const pods = manager.informerFor<Pod>(Pods, scope);
    new ControllerBuilder(manager, 'kvm-vm-simulator')
      .for(Pods, { scope })
      .complete((req) => sim.sync(req, pods.get(req.namespace, req.name)));
    return sim;
  }

  async sync(req: Request, pod: Pod | undefined): Promise<void> {
    const clusterId = req.namespace ?? '';
    const wc = this.opts.workloadClient(clusterId);
    if (!wc) return;
    if (!pod || !running(pod)) {
      await this.powerOff(wc, req.name);
      return;
    }
    const ip = vmIp(pod);
    if (pod.metadata.annotations?.[Annotations.endpointIp] !== ip) {
      await this.mc.patch(
        Pods,
        req.name,
        req.namespace,
        { metadata: { annotations: { [Annotations.endpointIp]: ip } } },
        'merge',
      );
    }
    if (pod.metadata.deletionTimestamp) {
      // shutdown-deferrer: the preStop hook returns once the node is drained; the VM then shuts
      // down and the containers exit, which ends the pod at once rather than at its grace period.
      if (pod.metadata.annotations?.[Annotations.drained] === 'True') {
        await this.mc
          .delete(Pods, req.name, req.namespace, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } })
          .catch((e: unknown) => {
            if (!isNotFound(e) && !isConflict(e)) throw e;
          });
      }
      return;
    }
    await this.boot(wc, pod, ip);
  }

  private async boot(wc: KubeClient, pod: Pod, ip: string): Promise<void> {
    const name = pod.metadata.name as string;
    try {
      await wc.get(Nodes, name);
      return;
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    const volumes = (pod.spec?.volumes ?? []) as Array<{ name: string; configMap?: { name?: string } }>;
    const cmName = volumes.find((v) => v.name === 'cloud-config')?.configMap?.name;
    let labels: Record<string, string> = {};
    let taints: Array<{ key: string; value?: string; effect: string }> = [];
    if (cmName) {
      const cm = await this.mc.get<KubeObject & { data?: Record<string, string> }>(
        ConfigMaps,
        cmName,
        pod.metadata.namespace,
      );
      const userData = cm.data?.user_data ?? '';
      labels = nodeLabelsFromUserData(userData);
      taints = nodeTaintsFromUserData(userData);
    }
    const node: KubeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: { ...labels, 'kubernetes.io/hostname': name, [SIMULATED_NODE_LABEL]: 'true' },
      },
      spec: taints.length ? { taints } : {},
      status: {
        addresses: [
          { type: 'InternalIP', address: ip },
          { type: 'Hostname', address: name },
        ],
      },
    };
    try {
      await wc.create(Nodes, node);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }

  private async powerOff(wc: KubeClient, name: string): Promise<void> {
    let node: KubeObject;
    try {
      node = await wc.get(Nodes, name);
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    const conditions = ((node.status as { conditions?: Array<Record<string, unknown>> } | undefined)?.conditions ??
      []) as Array<Record<string, unknown>>;
    const ready = conditions.find((c) => c.type === 'Ready');
    if (ready && ready.status === 'Unknown') return;
    const now = formatTime(new Date());
    const next = {
      type: 'Ready',
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
      lastHeartbeatTime: (ready?.lastHeartbeatTime as string | undefined) ?? now,
      lastTransitionTime: now,
    };
    await wc.patch(
      Nodes,
      name,
      undefined,
      { status: { conditions: [...conditions.filter((c) => c.type !== 'Ready'), next] } },
      'merge',
      { subresource: 'status' },
    );
  }
}
