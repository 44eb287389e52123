// The kubelet's side of pods/log, pods/exec and pods/portforward (../streams.ts) for the embedded
// cluster. Process containers answer from their captured output, with their env and working
// directory, and on their pod's loopback address; simulated containers write nothing (logs are
// empty, as kube's for a container that wrote nothing) and cannot be exec'd into or forwarded to.
//
// Which instance `logs` reads follows the kubelet's validateContainerLogStatus
// (pkg/kubelet/kubelet_pods.go): previous → lastState.terminated; else the running instance, the
// terminated one, or the last terminated one (CrashLoopBackOff); a waiting container is a 400.
import { connect } from 'node:net';
import { PassThrough, Readable, type Duplex } from 'node:stream';
import { badRequest } from '../../../apimachinery/errors/index.ts';
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import type { ContainerLogQuery, ExecRequest, ExecSession, PodStreams } from '../streams.ts';
import { readContainerLog } from './container-log.ts';
import type { ContainerRun } from './container-run.ts';
import { exitCodeOf } from './process-group.ts';
import type { ProcessRuntime } from './runtime.ts';

function containersOf(pod: JsonObject): JsonObject[] {
  const spec = (pod.spec ?? {}) as JsonObject;
  return [...((spec.initContainers ?? []) as JsonObject[]), ...((spec.containers ?? []) as JsonObject[])];
}

export class ClusterPodStreams implements PodStreams {
  constructor(private readonly runtime: () => ProcessRuntime | undefined) {}

  logs(pod: JsonObject, query: ContainerLogQuery, signal: AbortSignal): Promise<Readable> {
    const podName = String((pod.metadata as ObjectMeta).name);
    const c = this.processContainer(pod, query.container);
    if (!c) {
      if (this.isProcessContainer(pod, query.container))
        return Promise.reject(waitingError(query.container, podName, waitingReason(pod, query.container)));
      return Promise.resolve(Readable.from([]));
    }
    const r = c.record;
    const state = r.state;
    let id: string | undefined;
    if (query.previous) {
      id = r.lastState.terminated?.containerID;
      if (!id)
        return Promise.reject(badRequest(`previous terminated container "${c.name}" in pod "${podName}" not found`));
    } else if ('running' in state) id = r.containerID;
    else if ('terminated' in state) id = state.terminated.containerID ?? r.lastState.terminated?.containerID;
    else if (r.lastState.terminated) id = r.lastState.terminated.containerID;
    else return Promise.reject(waitingError(c.name, podName, state.waiting.reason));
    const log = id ? c.logs.get(id) : undefined;
    if (!log) return Promise.reject(badRequest(`container "${c.name}" in pod "${podName}" is not available`));
    return Promise.resolve(readContainerLog(log, query, signal));
  }

  exec(pod: JsonObject, request: ExecRequest): Promise<ExecSession> {
    const c = this.processContainer(pod, request.container);
    const worker = this.runtime()?.byUid((pod.metadata as ObjectMeta).uid);
    if (!c || !worker) return Promise.reject(this.simulatedError(pod, request.container));
    if (!c.running) return Promise.reject(badRequest(`container not found ("${c.name}")`));
    const group = worker.exec(c, request.command, request.stdin);
    const child = group.child;
    // Node resumes (and so drops) a child's unread output when it exits: hold it in our own buffer
    // until the server reads it (SPDY and v4 clients start the command before reading). With a tty
    // kube merges stderr into stdout; there is no terminal here, so merge the pipes.
    const wanted = [request.stdout ? child.stdout : null, request.stderr || request.tty ? child.stderr : null];
    for (const s of [child.stdout, child.stderr]) if (s && !wanted.includes(s)) s.resume();
    const hold = (sources: Array<Readable | null>): Readable | undefined => {
      const present = sources.filter((s): s is Readable => s !== null);
      if (present.length === 0) return undefined;
      const buffer = new PassThrough();
      let open = present.length;
      for (const s of present) {
        s.pipe(buffer, { end: false });
        s.once('end', () => void (--open === 0 && buffer.end()));
      }
      return buffer;
    };
    const stdout = request.tty ? hold(wanted) : hold([wanted[0]]);
    const stderr = request.tty ? undefined : hold([wanted[1]]);
    return Promise.resolve({
      stdin: request.stdin ? (child.stdin ?? undefined) : undefined,
      stdout,
      stderr,
      resize: () => undefined,
      exited: group.exited.then(({ code, signal }) => {
        if (group.spawnError && group.pid === undefined)
          return {
            error: `exec failed: unable to start container process: exec: "${request.command[0]}": executable file not found in $PATH`,
          };
        return { exitCode: exitCodeOf(code, signal) };
      }),
      kill: () => group.signal('SIGKILL'),
    });
  }

  async portForward(pod: JsonObject, port: number): Promise<Duplex> {
    const meta = pod.metadata as ObjectMeta;
    const worker = this.runtime()?.byUid(meta.uid);
    if (!worker) throw this.simulatedError(pod);
    const host = worker.podIP;
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.once('connect', () => {
        socket.removeAllListeners('error');
        resolve(socket);
      });
      socket.once('error', (e: NodeJS.ErrnoException) => {
        const why = e.code === 'ECONNREFUSED' ? 'connect: connection refused' : e.message;
        reject(
          new Error(
            `error forwarding port ${port} to pod ${meta.name}, uid ${meta.uid}: failed to connect to ${host}:${port}: dial tcp4 ${host}:${port}: ${why}`,
          ),
        );
      });
    });
  }

  private processContainer(pod: JsonObject, name: string): ContainerRun | undefined {
    const c = this.runtime()
      ?.byUid((pod.metadata as ObjectMeta).uid)
      ?.container(name);
    return c?.process ? c : undefined;
  }

  private isProcessContainer(pod: JsonObject, name: string): boolean {
    const runtime = this.runtime();
    const c = containersOf(pod).find((x) => x.name === name);
    return !!runtime && !!c && runtime.owns({ spec: { containers: [c] } });
  }

  private simulatedError(pod: JsonObject, container?: string): Error {
    const podName = String((pod.metadata as ObjectMeta).name);
    const images = this.runtime()?.options.images ?? [];
    const only = images.length
      ? `only containers of the images ${images.join(', ')} run as processes`
      : 'the process runtime is off, so no container runs as a process';
    const c = container ? containersOf(pod).find((x) => x.name === container) : undefined;
    if (c)
      return badRequest(
        `container "${container}" in pod "${podName}" is simulated (image "${String(c.image)}"): ${only}`,
      );
    if (this.runtime()?.owns(pod)) return badRequest(`pod "${podName}" is not running yet`);
    const all = containersOf(pod).map((x) => String(x.image));
    return badRequest(`pod "${podName}" is simulated (images: ${all.join(', ')}): ${only}`);
  }
}

function waitingReason(pod: JsonObject, container: string): string {
  const status = (pod.status ?? {}) as JsonObject;
  const all = [
    ...((status.initContainerStatuses ?? []) as JsonObject[]),
    ...((status.containerStatuses ?? []) as JsonObject[]),
  ];
  const waiting = ((all.find((s) => s.name === container)?.state ?? {}) as JsonObject).waiting as
    JsonObject | undefined;
  return typeof waiting?.reason === 'string' ? waiting.reason : 'ContainerCreating';
}

function waitingError(container: string, pod: string, reason: string): Error {
  return badRequest(`container "${container}" in pod "${pod}" is waiting to start: ${reason}`);
}
