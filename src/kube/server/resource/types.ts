// What every per-verb handler receives: the server's collaborators and the resolved request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceDef } from '../../registry/resource.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import type { Extensions } from '../extensions.ts';
import type { OutputTarget } from '../output/negotiate.ts';
import type { WatchRegistry } from '../watches.ts';
import type { FaultInjector } from '../faults/index.ts';

export interface HandlerDeps {
  store: ObjectStore;
  watches: WatchRegistry;
  extensions: Extensions;
  bookmarkIntervalMs: number;
  /** kube-apiserver's --min-request-timeout: a watch without timeoutSeconds lasts 1–2× this (0: forever). */
  minRequestTimeoutSeconds: number;
  /** Injected faults: a watch they end early asks here (see faults/injector.ts). */
  faults?: Pick<FaultInjector, 'watchEvents'>;
}

export interface ResourceRequest {
  def: ResourceDef;
  /** Undefined for cluster-scoped resources and for requests across all namespaces. */
  namespace: string | undefined;
  subresource: string | undefined;
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  /** The representation the Accept header negotiated. */
  output: OutputTarget;
}
