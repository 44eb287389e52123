// The process runtime of the simulated kubelets: it runs the pods that have at least one container
// of a process image (options.ts) as real processes (process-pod.ts), one worker per pod, shared by
// every simulated node. Pod directories live under the state directory and go with their pod.
// Nothing outlives the cluster: stop() SIGTERMs every process group and SIGKILLs it after a short
// grace, and process-group.ts SIGKILLs whatever is left when this process exits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import { EventRecorder } from '../../controllers/events.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import { RestartBackoffs, type CrashLoopBackOff } from '../restart-backoff.ts';
import type { ContainerConfig, ContainerConfigSource } from './container-config.ts';
import { DEFAULT_LOG_LIMIT_BYTES, isProcessImage, type ProcessRuntimeOptions } from './options.ts';
import { ProcessPod } from './process-pod.ts';
import { reapLeftoverGroups } from './leftovers.ts';
import { claimLoopbackBlock, type LoopbackBlock } from './loopback-block.ts';

export interface ProcessRuntimeDeps {
  store: ObjectStore;
  catalog: ResourceCatalog;
  /** Makes the config source (for the state directory) when the options name none. */
  configSource(stateDir: string): ContainerConfigSource & { stop?(): void };
  containerView?: (config: ContainerConfig, podIP: string, viewDir: string) => Record<string, string>;
  crashLoopBackOff: CrashLoopBackOff;
}

/** Env `value`s only, no volumes: the configuration of a container when nothing richer is wired. */
export const literalEnvConfigSource: ContainerConfigSource = {
  prepare(_pod, container) {
    const env: Record<string, string> = {};
    for (const e of (container.env ?? []) as JsonObject[])
      if (typeof e.value === 'string' || e.value === undefined) env[String(e.name)] = String(e.value ?? '');
    return Promise.resolve({
      env,
      mounts: [],
      ...(typeof container.workingDir === 'string' ? { workingDir: container.workingDir } : {}),
    });
  },
  release() {},
};

export class ProcessRuntime {
  private readonly pods = new Map<string, ProcessPod>();
  private readonly recorders = new Map<string, EventRecorder>();
  private readonly backoffs: RestartBackoffs;
  private readonly podsDef: ResourceDef;
  private readonly stateDir: string;
  private readonly ownStateDir: boolean;
  private readonly loopback: LoopbackBlock;
  private readonly configSource: ContainerConfigSource & { stop?(): void };
  private stopped = false;
  /** Workers of pods that are gone, still stopping their processes. */
  private readonly dying = new Set<Promise<void>>();

  constructor(
    private readonly deps: ProcessRuntimeDeps,
    readonly options: ProcessRuntimeOptions,
  ) {
    this.backoffs = new RestartBackoffs(deps.crashLoopBackOff);
    this.podsDef = deps.catalog.lookup('', 'v1', 'pods')!;
    this.ownStateDir = !options.stateDir;
    this.stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), 'peerpods-kubelet-'));
    // A kept directory may hold the pods of a run that was killed: they are started again here.
    if (!this.ownStateDir) reapLeftoverGroups(this.stateDir);
    this.configSource = options.configSource ?? deps.configSource(this.stateDir);
    this.loopback = claimLoopbackBlock();
    if (this.ownStateDir) process.once('exit', this.removeStateDir);
  }

  /** A temporary state directory goes even when the process exits without stop(). */
  private readonly removeStateDir = (): void => rmSync(this.stateDir, { recursive: true, force: true });

  /** The second octet of this runtime's pod IPs (loopback-block.ts). */
  get loopbackBlock(): number {
    return this.loopback.block;
  }

  /** A pod with at least one container of a process image. */
  owns(pod: JsonObject): boolean {
    const spec = (pod.spec ?? {}) as JsonObject;
    const all = [...((spec.containers ?? []) as JsonObject[]), ...((spec.initContainers ?? []) as JsonObject[])];
    return all.some((c) => isProcessImage(c.image, this.options.images));
  }

  has(key: string): boolean {
    return this.pods.has(key);
  }

  get(key: string): ProcessPod | undefined {
    return this.pods.get(key);
  }

  /** The pod of this uid, if it runs here. */
  byUid(uid: string | undefined): ProcessPod | undefined {
    for (const p of this.pods.values()) if (p.uid === uid) return p;
    return undefined;
  }

  start(key: string, pod: JsonObject, at: { nodeName: string; podIP: string; hostIP: string }): void {
    if (this.stopped || this.pods.has(key)) return;
    const meta = pod.metadata as ObjectMeta;
    const worker = new ProcessPod(
      {
        key,
        store: this.deps.store,
        podsDef: this.podsDef,
        events: this.recorder(at.nodeName),
        backoffs: this.backoffs,
        configSource: this.configSource,
        containerView: this.deps.containerView,
        entrypoint: this.options.entrypoint,
        images: this.options.images,
        logLimitBytes: this.options.logLimitBytes ?? DEFAULT_LOG_LIMIT_BYTES,
        podDir: this.podDir(String(meta.uid)),
        onError: (e) => console.error(`peerpods kubelet ${at.nodeName}: ${key}: ${(e as Error).message}`),
      },
      pod,
      at.podIP,
      at.hostIP,
    );
    this.pods.set(key, worker);
    worker.start();
  }

  update(key: string, pod: JsonObject): void {
    this.pods.get(key)?.update(pod);
  }

  /** The pod is gone from storage: its processes stop (SIGKILL after 2 s) and its directory goes. */
  forget(key: string): void {
    const worker = this.pods.get(key);
    if (!worker) return;
    this.pods.delete(key);
    this.backoffs.forget(`${key}\0`);
    const dying = worker.kill(2000).finally(() => {
      this.removePodDir(worker.uid);
      this.dying.delete(dying);
    });
    this.dying.add(dying);
  }

  /** Every process group: SIGTERM, then SIGKILL after the stop grace; resolves once all exited. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const grace = this.options.stopGraceMs ?? 2000;
    await Promise.all([...[...this.pods.values()].map((p) => p.kill(grace)), ...this.dying]);
    for (const p of this.pods.values()) this.removePodDir(p.uid);
    this.pods.clear();
    this.configSource.stop?.();
    this.loopback.release();
    if (this.ownStateDir) {
      process.off('exit', this.removeStateDir);
      this.removeStateDir();
    }
  }

  private podDir(uid: string): string {
    return join(this.stateDir, 'pods', uid);
  }

  private removePodDir(uid: string): void {
    this.configSource.release(uid);
    rmSync(this.podDir(uid), { recursive: true, force: true });
  }

  private recorder(nodeName: string): EventRecorder {
    let r = this.recorders.get(nodeName);
    if (!r) {
      r = new EventRecorder(this.deps.store, this.deps.catalog, 'kubelet', nodeName);
      this.recorders.set(nodeName, r);
    }
    return r;
  }
}
