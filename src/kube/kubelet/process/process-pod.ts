// One process pod on one node, run as the kubelet's pod worker runs it: init containers one by one
// (each must exit 0; restarted per restartPolicy), then the app containers, each restarted per
// restartPolicy with CrashLoopBackOff (restart-backoff.ts); probes drive `started`/`ready` and
// restarts; graceful deletion sends SIGTERM to every container's process group and SIGKILL once the
// grace period (at least 2 s) is over, then writes the terminated statuses and deletes the pod with
// grace 0. Status is written from what this worker knows, coalesced, through the status subresource.
import { mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import { objectReference, type EventType } from '../../../apimachinery/events/index.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import type { EventRecorder } from '../../controllers/events.ts';
import { internalContext } from '../../registry/context.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import { backOffMessage, type RestartBackoffs } from '../restart-backoff.ts';
import { ContainerLog } from './container-log.ts';
import { ContainerRun } from './container-run.ts';
import type { ContainerConfig, ContainerConfigSource } from './container-config.ts';
import { containerArgv, hostArgv, isProcessImage } from './options.ts';
import { ProcessGroup, exitCodeOf } from './process-group.ts';
import { recordGroup } from './leftovers.ts';
import { ContainerProber } from './prober.ts';
import type { ProbeTarget } from './probe.ts';
import { containerStatus, processPodConditions, processPodPhase, type TerminatedState } from './pod-status.ts';

const ctx = internalContext('kubelet');
/** kube's minimumGracePeriodInSeconds for container kills. */
const MIN_KILL_GRACE_MS = 2000;
/** Termination message from the log tail (FallbackToLogsOnError): at most 80 lines, 2048 bytes. */
const LOG_TAIL_LINES = 80;
const LOG_TAIL_BYTES = 2048;

export interface ProcessPodEnv {
  /** The pod's storage key (back-off entries are kept by it). */
  key: string;
  store: ObjectStore;
  podsDef: ResourceDef;
  events: EventRecorder;
  backoffs: RestartBackoffs;
  configSource: ContainerConfigSource;
  /** Env that makes the process see the container's paths and address (the container view). */
  containerView?: (config: ContainerConfig, podIP: string, viewDir: string) => Record<string, string>;
  entrypoint: string[];
  images: string[];
  logLimitBytes: number;
  podDir: string;
  onError(e: unknown): void;
}

type Policy = (exitCode: number) => boolean;

export class ProcessPod {
  readonly containers: ContainerRun[];
  private meta: ObjectMeta;
  private pod: JsonObject;
  private readonly startTime = formatTime(new Date());
  private terminating = false;
  /** No more status writes (the cluster is stopping or the pod is gone). */
  private closed = false;
  private readonly wake = new AbortController();
  private main?: Promise<void>;
  private writing?: Promise<void>;
  private dirty = false;
  private termStart = 0;
  private killAt = 0;
  private killTimer?: NodeJS.Timeout;
  private finishing?: Promise<void>;
  private readonly execs = new Set<ProcessGroup>();

  constructor(
    private readonly env: ProcessPodEnv,
    pod: JsonObject,
    readonly podIP: string,
    readonly hostIP: string,
  ) {
    this.pod = pod;
    this.meta = pod.metadata as ObjectMeta;
    const spec = (pod.spec ?? {}) as JsonObject;
    const inits = (spec.initContainers ?? []) as JsonObject[];
    const apps = (spec.containers ?? []) as JsonObject[];
    const isProcess = (c: JsonObject): boolean => isProcessImage(c.image, env.images);
    this.containers = [
      ...inits.map(
        (c) => new ContainerRun(c, c.restartPolicy === 'Always' ? 'sidecar' : 'init', isProcess(c), 'PodInitializing'),
      ),
      ...apps.map(
        (c) => new ContainerRun(c, 'app', isProcess(c), inits.length > 0 ? 'PodInitializing' : 'ContainerCreating'),
      ),
    ];
    const first = this.containers.find((c) => c.record.kind !== 'app');
    if (first) first.record.state = { waiting: { reason: 'ContainerCreating' } };
  }

  get uid(): string {
    return String(this.meta.uid);
  }

  get name(): string {
    return String(this.meta.name);
  }

  get restartPolicy(): string {
    const p = ((this.pod.spec ?? {}) as JsonObject).restartPolicy;
    return typeof p === 'string' ? p : 'Always';
  }

  container(name: string): ContainerRun | undefined {
    return this.containers.find((c) => c.name === name);
  }

  start(): void {
    this.main = this.run().catch(this.env.onError);
  }

  /** The latest pod object: a deletionTimestamp starts (or shortens) graceful termination. */
  update(pod: JsonObject): void {
    if ((pod.metadata as ObjectMeta).uid !== this.meta.uid) return;
    this.pod = pod;
    this.meta = pod.metadata as ObjectMeta;
    if (this.meta.deletionTimestamp) this.terminate();
  }

  /** Stops every process (SIGTERM, SIGKILL after `graceMs`) without writing status: cluster stop, pod gone. */
  async kill(graceMs: number): Promise<void> {
    this.closed = true;
    this.stopRunning();
    await Promise.all([
      ...this.containers.map((c) => c.group?.stop(graceMs)),
      ...[...this.execs].map((g) => g.stop(graceMs)),
    ]);
    clearTimeout(this.killTimer);
    await this.main;
  }

  // ---------------------------------------------------------------- lifecycle

  private async run(): Promise<void> {
    mkdirSync(this.env.podDir, { recursive: true });
    this.write();
    const restartInit: Policy = (code) => code !== 0 && this.restartPolicy !== 'Never';
    const loops: Array<Promise<unknown>> = [];
    for (const c of this.containers.filter((x) => x.record.kind !== 'app')) {
      if (this.terminating) return;
      if (c.record.kind === 'sidecar') {
        loops.push(this.lifecycle(c, () => true));
        await this.until(() => c.record.started);
        continue;
      }
      const exit = c.process ? await this.lifecycle(c, restartInit) : this.simulatedInitDone(c);
      if (exit !== 0) return; // terminating, or failed under Never (the phase says Failed)
    }
    if (this.terminating) return;
    const now = formatTime(new Date());
    for (const c of this.containers.filter((x) => x.record.kind === 'app' && !x.process))
      c.startSimulated(this.newContainerId(), now);
    const policy: Policy = (code) =>
      this.restartPolicy === 'Always' || (this.restartPolicy === 'OnFailure' && code !== 0);
    this.write();
    await Promise.all(
      this.containers.filter((x) => x.record.kind === 'app' && x.process).map((c) => this.lifecycle(c, policy)),
    );
    if (this.terminating) return;
    // Every app container is done for good: sidecars stop too, as kube stops them after the main ones.
    for (const c of this.containers.filter((x) => x.record.kind === 'sidecar')) {
      c.prober?.stop();
      void c.group?.stop(this.graceMs());
    }
    await Promise.all(loops);
  }

  private simulatedInitDone(c: ContainerRun): number {
    const now = formatTime(new Date());
    const containerID = this.newContainerId();
    Object.assign(c.record, {
      containerID,
      state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: now, finishedAt: now, containerID } },
    });
    this.write();
    return 0;
  }

  /** Runs instances of `c` until one exits for good; resolves with its exit code (undefined: stopped first). */
  private async lifecycle(c: ContainerRun, restarts: Policy): Promise<number | undefined> {
    const key = `${this.env.key}\0${c.name}`;
    for (;;) {
      const exit = await this.runInstance(c);
      if (exit === undefined) return undefined;
      if (this.terminating || !restarts(exit)) return exit;
      const delay = this.env.backoffs.delayAfterExit(key);
      if (delay > 0) {
        const terminated = 'terminated' in c.record.state ? c.record.state.terminated : undefined;
        c.record.lastState = terminated ? { terminated } : c.record.lastState;
        c.record.state = { waiting: { reason: 'CrashLoopBackOff', message: backOffMessage(delay, c.name, this.meta) } };
        this.write();
        this.event(c, 'Warning', 'BackOff', `Back-off restarting failed container ${c.name} in pod ${this.podText()}`);
        await this.sleep(delay);
        if (this.terminating) return exit;
      }
      this.env.backoffs.restarted(key);
    }
  }

  /**
   * The pod as the kubelet's env and downward API read it: its addresses are known before the
   * first status write stores them (fieldRef status.podIP must not come out empty).
   */
  private withAddresses(): JsonObject {
    const status = (this.pod.status ?? {}) as JsonObject;
    return {
      ...this.pod,
      status: {
        ...status,
        hostIP: this.hostIP,
        hostIPs: [{ ip: this.hostIP }],
        podIP: this.podIP,
        podIPs: [{ ip: this.podIP }],
      },
    };
  }

  /** One instance: config, spawn, probes, exit. Undefined when the pod stopped before it started. */
  private async runInstance(c: ContainerRun): Promise<number | undefined> {
    let config: ContainerConfig | undefined;
    while (!config) {
      if (this.terminating || this.closed) return undefined;
      try {
        config = await this.env.configSource.prepare(this.withAddresses(), c.spec, this.env.podDir);
      } catch (e) {
        const reason = (e as { reason?: unknown }).reason;
        const message = (e as Error).message;
        c.record.state = {
          waiting: { reason: typeof reason === 'string' ? reason : 'CreateContainerConfigError', message },
        };
        this.write();
        this.event(c, 'Warning', 'Failed', `Error: ${message}`);
        await this.sleep(Math.min(this.env.backoffs.config.initialMs, 10_000));
      }
    }
    if (this.terminating || this.closed) return undefined;
    const containerID = this.newContainerId();
    const startedAt = formatTime(new Date());
    const previous = 'terminated' in c.record.state ? c.record.state.terminated : undefined;
    if (c.instances > 0) {
      if (previous) c.record.lastState = { terminated: previous };
      c.record.restartCount++;
    }
    c.instances++;
    const viewEnv = this.env.containerView?.(config, this.podIP, join(this.env.podDir, 'view', c.name)) ?? {};
    c.env = {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOSTNAME: this.name,
      ...config.env,
      ...viewEnv,
    };
    c.cwd = this.hostPathOf(config, config.workingDir) ?? this.env.podDir;
    const argv = containerArgv(this.env.entrypoint, c.spec, config.env);
    const log = new ContainerLog(this.env.logLimitBytes);
    c.addLog(containerID, log);
    const group = new ProcessGroup(argv, { cwd: c.cwd, env: c.env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (group.pid !== undefined) recordGroup(this.env.podDir, group.pid);
    c.group = group;
    group.child.stdout?.setEncoding('utf8').on('data', (d: string) => log.write('stdout', d));
    group.child.stderr?.setEncoding('utf8').on('data', (d: string) => log.write('stderr', d));
    Object.assign(c.record, { containerID, state: { running: { startedAt } }, ready: false, started: false });
    if (group.pid !== undefined) {
      this.event(c, 'Normal', 'Pulled', `Container image "${c.record.image}" already present on machine`);
      this.event(c, 'Normal', 'Created', `Created container: ${c.name}`);
      this.event(c, 'Normal', 'Started', `Started container ${c.name}`);
      c.prober = this.prober(c, group);
      c.prober.start();
    }
    this.write();
    const { code, signal } = await group.exited;
    log.close();
    c.prober?.stop();
    c.prober = undefined;
    const finishedAt = formatTime(new Date());
    let terminated: TerminatedState;
    if (group.spawnError && group.pid === undefined) {
      const message = `exec: "${argv[0]}": ${group.spawnError.message}`;
      terminated = { exitCode: 128, reason: 'StartError', message, startedAt, finishedAt, containerID };
      this.event(c, 'Warning', 'Failed', `Error: ${message}`);
    } else {
      const exitCode = exitCodeOf(code, signal);
      terminated = { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt, finishedAt, containerID };
      const message = this.terminationMessage(c, log, exitCode);
      if (message) terminated.message = message;
    }
    Object.assign(c.record, { state: { terminated }, ready: false, started: false });
    c.group = undefined;
    this.write();
    return terminated.exitCode;
  }

  private prober(c: ContainerRun, group: ProcessGroup): ContainerProber {
    const target: ProbeTarget = {
      podIP: this.podIP,
      ports: (c.spec.ports ?? []) as JsonObject[],
      exec: (command, timeoutMs) => this.execCapture(c, command, timeoutMs),
    };
    return new ContainerProber(c.spec, target, {
      started: () => {
        c.record.started = true;
        this.write();
      },
      ready: (ready) => {
        c.record.ready = ready;
        this.write();
      },
      failed: (kind) => {
        if (this.terminating) return;
        const probe = (c.spec[kind === 'Liveness' ? 'livenessProbe' : 'startupProbe'] ?? {}) as JsonObject;
        this.event(c, 'Normal', 'Killing', `Container ${c.name} failed ${kind.toLowerCase()} probe, will be restarted`);
        const seconds = probe.terminationGracePeriodSeconds;
        void group.stop(typeof seconds === 'number' ? Math.max(MIN_KILL_GRACE_MS, seconds * 1000) : this.graceMs());
      },
      unhealthy: (kind, output) => this.event(c, 'Warning', 'Unhealthy', `${kind} probe failed: ${output}`),
    });
  }

  private terminationMessage(c: ContainerRun, log: ContainerLog, exitCode: number): string | undefined {
    if (exitCode === 0 || c.spec.terminationMessagePolicy !== 'FallbackToLogsOnError') return undefined;
    const text = log.lines
      .slice(-LOG_TAIL_LINES)
      .map((l) => l.text)
      .join('');
    const bytes = Buffer.from(text);
    return bytes.length > LOG_TAIL_BYTES ? bytes.subarray(bytes.length - LOG_TAIL_BYTES).toString() : text;
  }

  // ---------------------------------------------------------------- exec

  /** Starts a command in the container (its env and working directory); it dies with the pod. */
  exec(c: ContainerRun, command: string[], stdin: boolean): ProcessGroup {
    const group = new ProcessGroup(hostArgv(this.env.entrypoint, command), {
      cwd: c.cwd ?? this.env.podDir,
      env: c.env ?? { PATH: process.env.PATH ?? '' },
      stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    if (group.pid !== undefined) recordGroup(this.env.podDir, group.pid);
    this.execs.add(group);
    void group.exited.then(() => this.execs.delete(group));
    return group;
  }

  private async execCapture(
    c: ContainerRun,
    command: string[],
    timeoutMs: number,
  ): Promise<{ exitCode: number; output: string; timedOut: boolean }> {
    const group = this.exec(c, command, false);
    let output = '';
    group.child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d));
    group.child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      group.signal('SIGKILL');
    }, timeoutMs);
    const { code, signal } = await group.exited;
    clearTimeout(timer);
    if (group.spawnError && group.pid === undefined)
      return { exitCode: 126, output: group.spawnError.message, timedOut };
    return { exitCode: exitCodeOf(code, signal), output, timedOut };
  }

  // ---------------------------------------------------------------- termination

  private graceMs(): number {
    const spec = (this.pod.spec ?? {}) as JsonObject;
    const seconds =
      typeof this.meta.deletionGracePeriodSeconds === 'number'
        ? this.meta.deletionGracePeriodSeconds
        : typeof spec.terminationGracePeriodSeconds === 'number'
          ? spec.terminationGracePeriodSeconds
          : 30;
    return Math.max(MIN_KILL_GRACE_MS, seconds * 1000);
  }

  private stopRunning(): void {
    this.terminating = true;
    this.wake.abort();
    for (const c of this.containers) {
      c.prober?.stop();
      c.prober = undefined;
    }
  }

  private terminate(): void {
    const now = Date.now();
    if (!this.terminating) {
      this.stopRunning();
      this.termStart = now;
      for (const c of this.containers) {
        if (!c.group) continue;
        this.event(c, 'Normal', 'Killing', `Stopping container ${c.name}`);
        c.group.signal('SIGTERM');
      }
      for (const g of this.execs) g.signal('SIGTERM');
      this.finishing = this.finish().catch(this.env.onError);
    }
    // A later delete with a shorter grace period brings SIGKILL forward, never before 2 s.
    const killAt = Math.max(this.termStart + MIN_KILL_GRACE_MS, now + this.graceMs());
    if (this.killAt !== 0 && this.killAt <= killAt) return;
    this.killAt = killAt;
    clearTimeout(this.killTimer);
    this.killTimer = setTimeout(() => {
      for (const c of this.containers) c.group?.signal('SIGKILL');
      for (const g of this.execs) g.signal('SIGKILL');
    }, killAt - now);
    this.killTimer.unref();
  }

  private async finish(): Promise<void> {
    await this.main;
    await Promise.all(this.containers.map((c) => c.group?.exited));
    clearTimeout(this.killTimer);
    if (this.closed) return;
    const now = formatTime(new Date());
    for (const c of this.containers) {
      const state = c.record.state;
      if ('running' in state)
        c.record.state = {
          terminated: {
            exitCode: 0,
            reason: 'Completed',
            startedAt: state.running.startedAt,
            finishedAt: now,
            containerID: c.record.containerID,
          },
        };
      c.record.ready = false;
      c.record.started = false;
    }
    await this.writeStatus(this.terminalPhase());
    this.closed = true;
    try {
      await this.env.store.delete(
        this.env.podsDef,
        this.meta.namespace,
        this.name,
        { gracePeriodSeconds: 0, preconditions: { uid: this.uid } },
        ctx,
      );
    } catch (e) {
      const code = (e as { code?: number }).code;
      if (code !== 404 && code !== 409) throw e;
    }
  }

  /** A deleted pod ends Succeeded when every container's last exit was 0, else Failed. */
  private terminalPhase(): string {
    const codes = this.containers.map((c) => {
      const s = c.record.state;
      if ('terminated' in s) return s.terminated.exitCode;
      return c.record.lastState.terminated?.exitCode ?? 0;
    });
    return codes.every((x) => x === 0) ? 'Succeeded' : 'Failed';
  }

  // ---------------------------------------------------------------- status

  private write(): void {
    if (this.closed) return;
    this.dirty = true;
    if (this.writing) return;
    this.writing = (async () => {
      while (this.dirty && !this.closed) {
        this.dirty = false;
        await this.writeStatus().catch(this.env.onError);
      }
      this.writing = undefined;
    })();
  }

  private async writeStatus(forcePhase?: string): Promise<void> {
    if (this.writing && forcePhase) await this.writing;
    const records = this.containers.map((c) => c.record);
    const phase = forcePhase ?? processPodPhase(this.restartPolicy, records);
    await this.env.store.updateWith(
      this.env.podsDef,
      this.meta.namespace,
      this.name,
      ctx,
      (pod) => {
        const m = pod.metadata as ObjectMeta;
        if (m.uid !== this.meta.uid) return undefined;
        const status = (pod.status ?? {}) as JsonObject;
        const now = formatTime(new Date());
        const inits = this.containers.filter((c) => c.record.kind !== 'app').map((c) => containerStatus(c.record));
        const apps = this.containers.filter((c) => c.record.kind === 'app').map((c) => containerStatus(c.record));
        pod.status = {
          ...status,
          phase,
          conditions: processPodConditions((status.conditions ?? []) as JsonObject[], phase, records, now),
          hostIP: this.hostIP,
          hostIPs: [{ ip: this.hostIP }],
          podIP: this.podIP,
          podIPs: [{ ip: this.podIP }],
          startTime: typeof status.startTime === 'string' ? status.startTime : this.startTime,
          ...(inits.length > 0 ? { initContainerStatuses: inits } : {}),
          containerStatuses: apps,
        };
        return pod;
      },
      'status',
    );
  }

  // ---------------------------------------------------------------- helpers

  private newContainerId(): string {
    return `process://${randomBytes(32).toString('hex')}`;
  }

  private podText(): string {
    return `${this.meta.name}_${this.meta.namespace}(${this.meta.uid})`;
  }

  /** The host path behind a container path, when a mount covers it. */
  private hostPathOf(config: ContainerConfig, path: string | undefined): string | undefined {
    if (!path) return undefined;
    const mount = config.mounts
      .filter((m) => path === m.mountPath || path.startsWith(`${m.mountPath.replace(/\/$/, '')}/`))
      .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
    return mount ? join(mount.hostPath, path.slice(mount.mountPath.length)) : undefined;
  }

  private event(c: ContainerRun, type: EventType, reason: string, message: string): void {
    const field = c.record.kind === 'app' ? 'containers' : 'initContainers';
    const ref = objectReference({ apiVersion: 'v1', kind: 'Pod', metadata: this.meta }, `spec.${field}{${c.name}}`);
    void this.env.events.record(ref, type, reason, message).catch(() => undefined);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.wake.signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      timer.unref();
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake.signal.addEventListener('abort', done, { once: true });
    });
  }

  private async until(cond: () => boolean): Promise<void> {
    while (!cond() && !this.terminating) await this.sleep(50);
  }
}
