// Node pods as the drainer controller sees them, for the endpoint and pod handler tests.
import type { KubeClient } from '../../../../src/runtime/index.ts';
import { Pods } from '../../../../src/runtime/index.ts';
import { Annotations, Labels } from '../../../../src/kvm/api/index.ts';
import type { Pod } from '../../../../src/kvm/pods.ts';
import { eventually } from '../../../helpers/control-plane.ts';
import { OPERATOR_VERSION } from '../../helpers.ts';

export const HOLD = 'test.kvm/hold';

export interface NodePodOptions {
  name: string;
  namespace?: string;
  cluster?: string;
  service?: 'master' | 'worker';
  ip?: string;
  ready?: boolean;
  drained?: boolean;
  /** Bind to this management-cluster node, so a simulated kubelet runs it. */
  nodeName?: string;
  finalizers?: string[];
  deleting?: boolean;
  containers?: 'running' | 'terminated' | 'waiting' | 'none';
}

/** A node pod object (not written anywhere). */
export function nodePod(o: NodePodOptions): Pod {
  const cluster = o.cluster ?? 'abc12';
  const state =
    o.containers === 'terminated'
      ? { terminated: { exitCode: 0 } }
      : o.containers === 'waiting'
        ? { waiting: { reason: 'CrashLoopBackOff' } }
        : { running: { startedAt: '2024-01-01T00:00:00Z' } };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: o.name,
      namespace: o.namespace ?? cluster,
      labels: {
        [Labels.cluster]: cluster,
        [Labels.podWatcher]: 'kvm-operator',
        [Labels.operatorVersion]: OPERATOR_VERSION,
      },
      annotations: {
        [Annotations.apiEndpoint]: `api.${cluster}.k8s.example.com`,
        [Annotations.endpointIp]: o.ip ?? '',
        [Annotations.endpointService]: o.service ?? 'worker',
        [Annotations.drained]: o.drained ? 'True' : 'False',
      },
      ...(o.finalizers ? { finalizers: o.finalizers } : {}),
      ...(o.deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}),
    },
    spec: {
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
      terminationGracePeriodSeconds: 300,
      containers: [
        {
          name: 'k8s-kvm',
          image: 'quay.io/giantswarm/k8s-kvm:0.4.1',
          // Holds the pod Running through its grace period, as the shutdown-deferrer hook does.
          lifecycle: { preStop: { exec: { command: ['/qemu-shutdown'] } } },
        },
      ],
    },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: o.ready ? 'True' : 'False' }],
      ...(o.containers === 'none' ? {} : { containerStatuses: [{ name: 'k8s-kvm', state }] }),
    },
  };
}

/** Creates a node pod bound to `nodeName` and waits until its kubelet runs it. */
export async function runNodePod(client: KubeClient, o: NodePodOptions & { nodeName: string }): Promise<Pod> {
  const { status: _status, ...pod } = nodePod({ ...o, finalizers: o.finalizers ?? [HOLD] });
  await client.create(Pods, pod);
  const running = await eventually(
    async () => {
      const p = await client.get<Pod>(Pods, o.name, pod.metadata.namespace);
      return p.status?.containerStatuses?.some((c) => c.state?.running) ? p : undefined;
    },
    { what: `pod ${o.name} running` },
  );
  return running as Pod;
}

/** Deletes a pod (it stays, terminating, held by its finalizers and preStop hook) and returns it. */
export async function deleteAndGet(client: KubeClient, name: string, namespace: string): Promise<Pod> {
  await client.delete(Pods, name, namespace);
  return client.get<Pod>(Pods, name, namespace);
}

/** Drops the test's hold finalizer so the pod can go. */
export async function release(client: KubeClient, name: string, namespace: string): Promise<void> {
  try {
    const p = await client.get<Pod>(Pods, name, namespace);
    const finalizers = (p.metadata.finalizers ?? []).filter((f) => f !== HOLD);
    await client.patch(Pods, name, namespace, { metadata: { finalizers } }, 'merge');
  } catch {
    // gone already
  }
}
