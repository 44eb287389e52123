// A simulated kubelet: it "runs" the pods bound to its node by writing the status a real kubelet
// would (Running, conditions, container statuses, IPs), and finishes graceful deletions.
//
// IPs: a pod gets the next free address of its node's pod CIDR (10.244.<i>.2..254); a
// hostNetwork pod gets the node's IP as podIP/podIPs, as in kube, and takes no CIDR address.
//
// Graceful deletion: once a pod has a deletionTimestamp the kubelet
// - without preStop hooks, waits min(deletionGracePeriodSeconds, shutdownMs) — the simulated
//   containers stop at once;
// - when a running container has `lifecycle.preStop`, keeps the pod Running with its containers
//   running until the deletionTimestamp (the server sets it to deletion time + grace, to the
//   second), as a hook that blocks for the whole grace period would: shutdownMs does not cap it.
// A later delete with a shorter grace period moves deletionTimestamp earlier (the server
// shortens it as kube-apiserver does); the kubelet sees that update and finishes at the new,
// earlier time. Finishing marks the containers terminated and the pod Succeeded, then deletes
// it with gracePeriodSeconds 0; a pod with finalizers stays in storage, terminated, until they
// are removed. Hooks are not executed (nothing runs), and postStart is ignored; no
// Pulled/Created/Started/Killing events are written.
//
// Containers whose command reads as `true`, `false`, `sleep N` or `sh -c 'sleep N; exit M'`
// exit after that time with that code and are restarted per restartPolicy with the kubelet's
// CrashLoopBackOff (container-exit.ts, container-runs.ts); every other container runs until
// the pod is deleted.
//
// Pods with a container of a process image (process/options.ts) are handed to the process runtime
// instead: they run as real processes, on a loopback pod IP 127.<block+i>.<j>.<host> that mirrors the
// node's pod CIDR (10.<244+i>.<j>.0/24) in the block the runtime claimed (127.244 unless another
// cluster on this machine holds it), so their ports are reachable from this machine.
import { createHash } from 'node:crypto';
import { ContainerRuns, DEFAULT_CRASH_LOOP_BACKOFF, containerId, type CrashLoopBackOff } from './container-runs.ts';
import type { JsonObject, ObjectMeta } from '../../apimachinery/meta/index.ts';
import type { ResourceDef } from '../registry/resource.ts';
import { internalContext } from '../registry/context.ts';
import type { ObjectStore } from '../registry/store/index.ts';
import { formatTime } from '../../apimachinery/time/index.ts';
import { nodeIp, podCidrBase, processPodCidrBase } from '../controllers/nodes/node-object.ts';
import type { ProcessRuntime } from './process/runtime.ts';

const ctx = internalContext('kubelet');

function hash(text: string, len: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, len);
}

function imageId(image: string): string {
  const repo = image.split('@')[0];
  return `${repo.includes('/') ? repo : `docker.io/library/${repo}`}@sha256:${hash(image, 64)}`;
}

/** A container with a preStop hook is running: its hook would hold the pod for the grace period. */
function hasRunningPreStop(pod: JsonObject): boolean {
  const spec = (pod.spec ?? {}) as JsonObject;
  const status = (pod.status ?? {}) as JsonObject;
  const statuses = [
    ...((status.containerStatuses ?? []) as JsonObject[]),
    ...((status.initContainerStatuses ?? []) as JsonObject[]),
  ];
  const running = new Set(statuses.filter((s) => (s.state as JsonObject | undefined)?.running).map((s) => s.name));
  // Sidecars (restartable init containers) run their preStop hooks too.
  const containers = [...((spec.containers ?? []) as JsonObject[]), ...((spec.initContainers ?? []) as JsonObject[])];
  return containers.some((c) => (c.lifecycle as JsonObject | undefined)?.preStop && running.has(c.name));
}

export class SimulatedKubelet {
  /** Host part (2..254) of each pod IP in use, by pod key. */
  private readonly ips = new Map<string, number>();
  private readonly used = new Set<number>();
  /** Pods being terminated: when, and the timer (undefined once it fired). */
  private readonly terminating = new Map<string, { due: number; timer?: NodeJS.Timeout }>();
  private readonly runs: ContainerRuns;
  /** Pods handed to the process runtime. */
  private readonly processPods = new Set<string>();

  constructor(
    readonly nodeName: string,
    readonly index: number,
    private readonly store: ObjectStore,
    private readonly podsDef: ResourceDef,
    private readonly shutdownMs: number,
    crashLoopBackOff: CrashLoopBackOff = DEFAULT_CRASH_LOOP_BACKOFF,
    private readonly processes?: ProcessRuntime,
  ) {
    this.runs = new ContainerRuns(store, podsDef, crashLoopBackOff, (e) =>
      console.error(`peerpods kubelet ${nodeName}: ${(e as Error).message}`),
    );
  }

  get hostIp(): string {
    return nodeIp(this.index, this.processes?.loopbackBlock);
  }

  stop(): void {
    for (const t of this.terminating.values()) clearTimeout(t.timer);
    this.terminating.clear();
    this.runs.stop();
    // A node that goes away takes its processes with it.
    for (const key of this.processPods) this.processes?.forget(key);
    this.processPods.clear();
  }

  /** The pod is gone from storage. */
  forget(key: string): void {
    const host = this.ips.get(key);
    if (host !== undefined) this.used.delete(host);
    this.ips.delete(key);
    clearTimeout(this.terminating.get(key)?.timer);
    this.terminating.delete(key);
    this.runs.forget(key);
    this.processes?.forget(key);
    this.processPods.delete(key);
  }

  async sync(key: string, pod: JsonObject): Promise<void> {
    const meta = pod.metadata as ObjectMeta;
    const status = (pod.status ?? {}) as JsonObject;
    if (typeof status.podIP === 'string') this.remember(key, status.podIP);
    if (this.processes?.has(key)) return this.processes.update(key, pod);
    const spec = (pod.spec ?? {}) as JsonObject;
    const terminal = status.phase === 'Succeeded' || status.phase === 'Failed';
    if (this.processes?.owns(pod) && !meta.deletionTimestamp && !terminal) {
      const hostNetwork = spec.hostNetwork === true;
      const podIP = hostNetwork
        ? this.hostIp
        : this.allocateIp(key, processPodCidrBase(this.index, this.processes?.loopbackBlock));
      this.processPods.add(key);
      this.processes.start(key, pod, { nodeName: this.nodeName, podIP, hostIP: this.hostIp });
      return;
    }
    if (meta.deletionTimestamp) {
      this.runs.disarm(key);
      this.scheduleTermination(key, pod);
      return;
    }
    if (status.phase === 'Pending' && !status.startTime)
      await this.start(key, meta, ((pod.spec ?? {}) as JsonObject).hostNetwork === true);
    else if (status.phase === 'Running') this.runs.arm(key, pod);
  }

  private remember(key: string, ip: string): void {
    const host = Number(ip.split('.')[3]);
    const ours = [podCidrBase(this.index), processPodCidrBase(this.index, this.processes?.loopbackBlock)].some((base) =>
      ip.startsWith(`${base}.`),
    );
    if (this.ips.has(key) || !ours) return;
    this.ips.set(key, host);
    this.used.add(host);
  }

  private allocateIp(key: string, base = podCidrBase(this.index)): string {
    let host = this.ips.get(key);
    if (host === undefined) {
      host = 2;
      while (this.used.has(host) && host < 254) host++;
      this.ips.set(key, host);
      this.used.add(host);
    }
    return `${base}.${host}`;
  }

  private async start(key: string, meta: ObjectMeta, hostNetwork: boolean): Promise<void> {
    const hostIp = this.hostIp;
    const podIp = hostNetwork ? hostIp : this.allocateIp(key);
    await this.store.updateWith(
      this.podsDef,
      meta.namespace,
      meta.name!,
      ctx,
      (pod) => {
        const spec = (pod.spec ?? {}) as JsonObject;
        const status = (pod.status ?? {}) as JsonObject;
        const m = pod.metadata as ObjectMeta;
        if (spec.nodeName !== this.nodeName || status.phase !== 'Pending' || status.startTime || m.deletionTimestamp)
          return undefined;
        const now = formatTime(new Date());
        const cond = (type: string): JsonObject => ({
          type,
          status: 'True',
          lastProbeTime: null,
          lastTransitionTime: now,
        });
        const kept = ((status.conditions ?? []) as JsonObject[]).filter((c) => c.type === 'PodScheduled');
        const containers = (spec.containers ?? []) as JsonObject[];
        const inits = (spec.initContainers ?? []) as JsonObject[];
        pod.status = {
          ...status,
          phase: 'Running',
          conditions: [
            cond('PodReadyToStartContainers'),
            cond('Initialized'),
            cond('Ready'),
            cond('ContainersReady'),
            ...kept,
          ],
          hostIP: hostIp,
          hostIPs: [{ ip: hostIp }],
          podIP: podIp,
          podIPs: [{ ip: podIp }],
          startTime: now,
          ...(inits.length > 0
            ? {
                initContainerStatuses: inits.map((c) => {
                  const base = this.containerBase(c, containerId(m.uid, String(c.name)));
                  return c.restartPolicy === 'Always'
                    ? { ...base, ready: true, started: true, state: { running: { startedAt: now } } }
                    : {
                        ...base,
                        ready: true,
                        started: false,
                        state: {
                          terminated: {
                            exitCode: 0,
                            reason: 'Completed',
                            startedAt: now,
                            finishedAt: now,
                            containerID: base.containerID,
                          },
                        },
                      };
                }),
              }
            : {}),
          containerStatuses: containers.map((c) => ({
            ...this.containerBase(c, containerId(m.uid, String(c.name))),
            ready: true,
            started: true,
            state: { running: { startedAt: now } },
          })),
        };
        return pod;
      },
      'status',
    );
  }

  private containerBase(c: JsonObject, containerID: string): JsonObject & { containerID: string } {
    const image = String(c.image ?? '');
    return { name: c.name, image, imageID: imageId(image), containerID, restartCount: 0, lastState: {} };
  }

  /**
   * (Re)arms the pod's termination: at its deletionTimestamp when a running container has a
   * preStop hook, else after min(grace, shutdownMs). Only ever moves the moment earlier.
   */
  private scheduleTermination(key: string, pod: JsonObject): void {
    const meta = pod.metadata as ObjectMeta;
    const current = this.terminating.get(key);
    if (current && current.timer === undefined) return; // finishing or finished
    const now = Date.now();
    const grace = typeof meta.deletionGracePeriodSeconds === 'number' ? meta.deletionGracePeriodSeconds * 1000 : 0;
    const deadline = Date.parse(String(meta.deletionTimestamp));
    const due =
      hasRunningPreStop(pod) && !Number.isNaN(deadline) && grace > 0
        ? deadline
        : now + Math.min(grace, this.shutdownMs);
    if (current && current.due <= due) return;
    clearTimeout(current?.timer);
    const entry: { due: number; timer?: NodeJS.Timeout } = { due };
    entry.timer = setTimeout(
      () => {
        entry.timer = undefined;
        void this.finish(meta).catch((e: unknown) => {
          console.error(`peerpods kubelet ${this.nodeName}: ${meta.namespace}/${meta.name}: ${(e as Error).message}`);
          if (this.terminating.get(key) === entry) this.terminating.delete(key);
        });
      },
      Math.max(0, due - now),
    );
    entry.timer.unref();
    this.terminating.set(key, entry);
  }

  private async finish(meta: ObjectMeta): Promise<void> {
    const uid = meta.uid;
    await this.store.updateWith(
      this.podsDef,
      meta.namespace,
      meta.name!,
      ctx,
      (pod) => {
        const status = (pod.status ?? {}) as JsonObject;
        if ((pod.metadata as ObjectMeta).uid !== uid || status.phase === 'Succeeded' || status.phase === 'Failed')
          return undefined;
        const now = formatTime(new Date());
        const terminate = (cs: JsonObject): JsonObject => {
          const running = (cs.state as { running?: { startedAt?: string } } | undefined)?.running;
          if (!running) return cs;
          return {
            ...cs,
            ready: false,
            started: false,
            state: {
              terminated: {
                exitCode: 0,
                reason: 'Completed',
                startedAt: running.startedAt ?? now,
                finishedAt: now,
                containerID: cs.containerID,
              },
            },
          };
        };
        const conditions = ((status.conditions ?? []) as JsonObject[]).map((c) =>
          c.type === 'Ready' || c.type === 'ContainersReady'
            ? { ...c, status: 'False', reason: 'PodCompleted', lastTransitionTime: now }
            : c,
        );
        pod.status = {
          ...status,
          phase: 'Succeeded',
          conditions,
          ...(status.containerStatuses
            ? { containerStatuses: (status.containerStatuses as JsonObject[]).map(terminate) }
            : {}),
          ...(status.initContainerStatuses
            ? { initContainerStatuses: (status.initContainerStatuses as JsonObject[]).map(terminate) }
            : {}),
        };
        return pod;
      },
      'status',
    );
    try {
      await this.store.delete(
        this.podsDef,
        meta.namespace,
        meta.name!,
        { gracePeriodSeconds: 0, preconditions: uid ? { uid } : undefined },
        ctx,
      );
    } catch (e) {
      const code = (e as { code?: number }).code;
      if (code !== 404 && code !== 409) throw e;
    }
  }
}
