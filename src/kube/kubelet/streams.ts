// What the API server asks of a node's kubelet for the pod subresources a real API server
// proxies to the kubelet: pods/log, pods/exec and pods/portforward. The server owns the wire
// protocols (HTTP, WebSocket channels, SPDY) and the API-side checks (PodLogOptions validation,
// container selection); the kubelet answers for its containers.
//
// Errors are StatusErrors carrying the kubelet's texts (cluster-runtime.md §3.1/3.2), e.g.
// `container "c" in pod "p" is waiting to start: ContainerCreating` (400), or
// `previous terminated container "c" in pod "p" not found` (400).
import type { Duplex, Readable, Writable } from 'node:stream';
import type { JsonObject } from '../../apimachinery/meta/index.ts';

/** A pods/log request after the API server validated it and picked the container. */
export interface ContainerLogQuery {
  container: string;
  /** The previous (terminated) instance instead of the current one. */
  previous: boolean;
  /** Keep streaming until the container instance exits (or the request ends). */
  follow: boolean;
  /** Only lines written at or after this moment (sinceSeconds is turned into it by the server). */
  since?: Date;
  /** Only the last N lines (before following). */
  tailLines?: number;
  /** Stop after this many bytes (the last line may be cut). */
  limitBytes?: number;
  /** Prefix each line with its RFC 3339 nano timestamp, fixed width, and a space. */
  timestamps: boolean;
}

export interface ExecRequest {
  container: string;
  command: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** A running exec: the process's pipes and how it ended. */
export interface ExecSession {
  /** Present when stdin was asked for; end() it for EOF. */
  stdin?: Writable;
  stdout?: Readable;
  /** Absent with a tty (stderr is merged into stdout), as in kube. */
  stderr?: Readable;
  /** A terminal size change (tty only). */
  resize(width: number, height: number): void;
  /** Resolves with the exit code, or a message when the command could not run. */
  exited: Promise<{ exitCode: number } | { error: string }>;
  /** Ends the command (the client went away). */
  kill(): void;
}

export interface PodStreams {
  /**
   * The log bytes of one container, already filtered and formatted; ends when the instance
   * exits (follow) or at once (no follow). `signal` aborts when the client disconnects.
   */
  logs(pod: JsonObject, query: ContainerLogQuery, signal: AbortSignal): Promise<Readable>;
  exec(pod: JsonObject, request: ExecRequest): Promise<ExecSession>;
  /** A connection to `port` of the pod, as the kubelet's port-forward opens it. */
  portForward(pod: JsonObject, port: number): Promise<Duplex>;
}
