// One probe attempt, as the kubelet's prober runs it (pkg/kubelet/prober/prober.go and
// pkg/probe/{http,tcp,exec}): httpGet succeeds on 200–399, tcpSocket on a connection, exec on exit
// code 0. The failure texts are kube's, e.g. `HTTP probe failed with statuscode: 500` or
// `Get "http://127.244.1.2:8080/": dial tcp 127.244.1.2:8080: connect: connection refused`.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { KUBE_VERSION } from '../../version.ts';

export interface ProbeResult {
  success: boolean;
  output: string;
}

export interface ProbeTarget {
  podIP: string;
  /** The container's `ports`, for named probe ports. */
  ports: JsonObject[];
  /** Runs a command in the container, killed after `timeoutMs`. */
  exec(command: string[], timeoutMs: number): Promise<{ exitCode: number; output: string; timedOut: boolean }>;
}

/** kube's probe defaults (pkg/apis/core/v1/defaults.go). */
export function probeTiming(probe: JsonObject): {
  initialDelayMs: number;
  timeoutMs: number;
  periodMs: number;
  successThreshold: number;
  failureThreshold: number;
} {
  const n = (v: unknown, d: number): number => (typeof v === 'number' && v > 0 ? v : d);
  return {
    initialDelayMs: (typeof probe.initialDelaySeconds === 'number' ? probe.initialDelaySeconds : 0) * 1000,
    timeoutMs: n(probe.timeoutSeconds, 1) * 1000,
    periodMs: n(probe.periodSeconds, 10) * 1000,
    successThreshold: n(probe.successThreshold, 1),
    failureThreshold: n(probe.failureThreshold, 3),
  };
}

function resolvePort(port: unknown, target: ProbeTarget): number | undefined {
  if (typeof port === 'number') return port;
  if (typeof port === 'string' && /^\d+$/.test(port)) return Number(port);
  const named = target.ports.find((p) => p.name === port);
  return typeof named?.containerPort === 'number' ? named.containerPort : undefined;
}

/** Go's net error text for a failed dial. */
function dialError(e: NodeJS.ErrnoException, host: string, port: number): string {
  const addr = `${host}:${port}`;
  if (e.code === 'ECONNREFUSED') return `dial tcp ${addr}: connect: connection refused`;
  if (e.code === 'ETIMEDOUT') return `dial tcp ${addr}: i/o timeout`;
  if (e.code === 'ECONNRESET') return `read tcp ${addr}: read: connection reset by peer`;
  return e.message;
}

/**
 * Calls `onTimeout` once `timeoutMs` of the probe's time has passed. A real kubelet is a process of
 * its own on the pod's node; the simulated kubelets share this process's thread with the API server,
 * so a busy server (or a thread the OS did not schedule) delays both the timer and the reading of a
 * reply that may already be there. The time the timer fired late is not the pod's: it is given back
 * (up to the timeout, a few times), and a reply already received is read before the probe fails.
 * Returns the cancel.
 */
export function probeDeadline(timeoutMs: number, onTimeout: () => void): () => void {
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  let cancelled = false;
  let givenBack = 0;
  const arm = (ms: number): void => {
    const due = performance.now() + ms;
    timer = setTimeout(() => {
      const late = performance.now() - due;
      if (late > STALL_MS && givenBack < MAX_GIVE_BACKS) {
        givenBack++;
        arm(Math.min(late, timeoutMs));
        return;
      }
      // setImmediate runs after this turn's I/O: a reply that arrived while the thread was busy is read first.
      timer = setImmediate(() => {
        if (!cancelled) onTimeout();
      });
    }, ms);
  };
  arm(timeoutMs);
  return () => {
    cancelled = true;
    clearTimeout(timer as NodeJS.Timeout);
    clearImmediate(timer as NodeJS.Immediate);
  };
}

/** A timer this late means the thread was stalled, not the pod. */
const STALL_MS = 50;
const MAX_GIVE_BACKS = 3;

function httpProbe(spec: JsonObject, target: ProbeTarget, timeoutMs: number): Promise<ProbeResult> {
  const scheme = String(spec.scheme ?? 'HTTP').toLowerCase();
  const host = typeof spec.host === 'string' && spec.host ? spec.host : target.podIP;
  const port = resolvePort(spec.port, target);
  if (port === undefined)
    return Promise.resolve({ success: false, output: `unable to find port ${String(spec.port)}` });
  let path = typeof spec.path === 'string' && spec.path ? spec.path : '/';
  if (!path.startsWith('/')) path = `/${path}`;
  const url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
  const headers: Record<string, string> = {
    'User-Agent': `kube-probe/${KUBE_VERSION.major}.${KUBE_VERSION.minor}`,
    Accept: '*/*',
  };
  for (const h of (spec.httpHeaders ?? []) as JsonObject[]) headers[String(h.name)] = String(h.value ?? '');
  const request = scheme === 'https' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: ProbeResult): void => {
      if (settled) return;
      settled = true;
      cancel();
      req.destroy();
      resolve(r);
    };
    const req = request(url, { method: 'GET', headers, rejectUnauthorized: false }, (res) => {
      const code = res.statusCode ?? 0;
      res.resume();
      if (code >= 200 && code < 400) done({ success: true, output: '' });
      else done({ success: false, output: `HTTP probe failed with statuscode: ${code}` });
    });
    const cancel = probeDeadline(timeoutMs, () =>
      done({
        success: false,
        output: `Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
      }),
    );
    req.on('error', (e: NodeJS.ErrnoException) =>
      done({ success: false, output: `Get "${url}": ${dialError(e, host, port)}` }),
    );
    req.end();
  });
}

function tcpProbe(spec: JsonObject, target: ProbeTarget, timeoutMs: number): Promise<ProbeResult> {
  const host = typeof spec.host === 'string' && spec.host ? spec.host : target.podIP;
  const port = resolvePort(spec.port, target);
  if (port === undefined)
    return Promise.resolve({ success: false, output: `unable to find port ${String(spec.port)}` });
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let settled = false;
    const done = (r: ProbeResult): void => {
      if (settled) return;
      settled = true;
      cancel();
      socket.destroy();
      resolve(r);
    };
    const cancel = probeDeadline(timeoutMs, () =>
      done({ success: false, output: `dial tcp ${host}:${port}: i/o timeout` }),
    );
    socket.once('connect', () => done({ success: true, output: '' }));
    socket.once('error', (e: NodeJS.ErrnoException) => done({ success: false, output: dialError(e, host, port) }));
  });
}

async function execProbe(spec: JsonObject, target: ProbeTarget, timeoutMs: number): Promise<ProbeResult> {
  const command = Array.isArray(spec.command) ? spec.command.map(String) : [];
  const r = await target.exec(command, timeoutMs);
  if (r.timedOut) return { success: false, output: `command ${JSON.stringify(command.join(' '))} timed out` };
  return { success: r.exitCode === 0, output: r.output };
}

export function runProbe(probe: JsonObject, target: ProbeTarget): Promise<ProbeResult> {
  const { timeoutMs } = probeTiming(probe);
  if (probe.httpGet) return httpProbe(probe.httpGet as JsonObject, target, timeoutMs);
  if (probe.tcpSocket) return tcpProbe(probe.tcpSocket as JsonObject, target, timeoutMs);
  if (probe.exec) return execProbe(probe.exec as JsonObject, target, timeoutMs);
  // grpc is not run here: treated as passing, so it neither blocks readiness nor kills.
  return Promise.resolve({ success: true, output: '' });
}
