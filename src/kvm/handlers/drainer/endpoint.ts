// The endpoint handler of the drainer controller (upstream resource/endpoint, baseline semantics):
// the `master` and `worker` Services have no selector, so the operator itself lists each node
// pod's VM IP (pod annotation endpoint.kvm.giantswarm.io/ip, written by k8s-endpoint-updater) in
// the same-named Endpoints of the cluster namespace.
//   update path: add the IP (a master at once, a worker once its pod is Ready); never remove one.
//   delete path: remove the pod's IP; a worker's at once (traffic stops before the drain), a
//                master's only once its VM stopped (it serves the API until the drain is over).
import { isPodReady } from '../../../apimachinery/core/index.ts';
import {
  Endpoints,
  Pods,
  Services,
  crudHandler,
  ignoreNotFound,
  isNotFound,
  type CrudResource,
  type HandlerContext,
  type KubeObject,
  type Patch,
  type ResourceHandler,
} from '../../../runtime/index.ts';
import type { KvmDeps } from '../../deps.ts';
import { endpointIpOf, endpointServiceOf, isDeleting, noContainerRunning, type Pod } from '../../pods.ts';

export interface EndpointAddress {
  ip: string;
  [key: string]: unknown;
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol?: string;
}

export interface EndpointsObject extends KubeObject {
  subsets?: { addresses?: EndpointAddress[]; notReadyAddresses?: EndpointAddress[]; ports?: EndpointPort[] }[];
}

interface ServiceObject extends KubeObject {
  spec?: { ports?: { name?: string; port: number; protocol?: string }[] };
}

/** One Endpoints object as this handler sees it: its ready IPs and ports. */
export interface EndpointsState {
  namespace: string;
  name: string;
  ips: string[];
  /** Undefined in the desired state when the Service is missing: keep whatever ports are there. */
  ports?: EndpointPort[];
  /** The object as read, when it exists: writes keep its metadata and notReadyAddresses. */
  existing?: EndpointsObject;
}

/** The pod's IP when its VM should get traffic: a master always, a worker once its pod is Ready. */
export function desiredIps(service: string, ip: string, podReady: boolean): string[] {
  return service === 'worker' && !podReady ? [] : [ip];
}

export function portsFromService(svc: ServiceObject | undefined): EndpointPort[] | undefined {
  if (!svc) return undefined;
  return (svc.spec?.ports ?? []).map((p) => ({
    ...(p.name ? { name: p.name } : {}),
    port: p.port,
    protocol: p.protocol ?? 'TCP',
  }));
}

function portKey(p: EndpointPort): string {
  return `${p.name ?? ''}/${p.port}/${p.protocol ?? 'TCP'}`;
}

export function portsEqual(a: readonly EndpointPort[], b: readonly EndpointPort[]): boolean {
  const ka = a.map(portKey).sort();
  const kb = b.map(portKey).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

export function readyIps(ep: EndpointsObject): string[] {
  const ips: string[] = [];
  for (const s of ep.subsets ?? []) for (const a of s.addresses ?? []) if (!ips.includes(a.ip)) ips.push(a.ip);
  return ips;
}

function notReadyAddresses(ep: EndpointsObject | undefined): EndpointAddress[] {
  return (ep?.subsets ?? []).flatMap((s) => s.notReadyAddresses ?? []);
}

/**
 * The update path. Create when the Endpoints object does not exist (and there is an IP to list);
 * otherwise update to the union when a desired IP is missing, or the Service's ports changed.
 * Nothing is ever removed here: a worker whose pod turned NotReady keeps its IP (upstream's
 * baseline semantic; its VM may still serve, and dead IPs are the deleter's to sweep).
 */
export function endpointsUpdatePatch(current: EndpointsState, desired: EndpointsState): Patch<EndpointsState> {
  if (!current.existing) return desired.ips.length > 0 ? { create: { ...desired, ports: desired.ports ?? [] } } : {};
  const missing = desired.ips.filter((ip) => !current.ips.includes(ip));
  const portsDrift = desired.ports !== undefined && !portsEqual(current.ports ?? [], desired.ports);
  if (missing.length === 0 && !portsDrift) return {};
  return { update: { ...current, ips: [...current.ips, ...missing], ports: desired.ports ?? current.ports } };
}

/** The delete path: drop the pod's IP; delete the Endpoints once no address (ready or not) is left. */
export function endpointsDeletePatch(current: EndpointsState, podIp: string): Patch<EndpointsState> {
  if (!current.existing || !current.ips.includes(podIp)) return {};
  const ips = current.ips.filter((ip) => ip !== podIp);
  if (ips.length === 0 && notReadyAddresses(current.existing).length === 0) return { delete: { ...current, ips } };
  return { update: { ...current, ips } };
}

/** The object to write: one subset with the IPs, the ports and the untouched notReadyAddresses. */
export function endpointsObject(state: EndpointsState): EndpointsObject {
  const old = new Map((state.existing?.subsets ?? []).flatMap((s) => s.addresses ?? []).map((a) => [a.ip, a]));
  const addresses = state.ips.map((ip) => old.get(ip) ?? { ip });
  const notReady = notReadyAddresses(state.existing);
  const subset = {
    ...(addresses.length ? { addresses } : {}),
    ...(notReady.length ? { notReadyAddresses: notReady } : {}),
    ports: state.ports ?? [],
  };
  return {
    ...(state.existing ?? {}),
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { ...(state.existing?.metadata ?? {}), name: state.name, namespace: state.namespace },
    subsets: addresses.length || notReady.length ? [subset] : [],
  };
}

function endpointResource(deps: KvmDeps): CrudResource<Pod, EndpointsState> {
  const client = deps.client;
  const target = (pod: Pod): { namespace: string; name: string } => ({
    namespace: pod.metadata.namespace as string,
    name: endpointServiceOf(pod) as string,
  });
  return {
    name: 'endpoint',
    async currentState(pod, ctx) {
      const ip = endpointIpOf(pod);
      const service = endpointServiceOf(pod);
      if (!ip || !service) {
        ctx.cancelHandler('the endpoint updater has not reported the VM IP yet');
        return { namespace: pod.metadata.namespace ?? '', name: service ?? '', ips: [] };
      }
      const { namespace, name } = target(pod);
      if (ctx.event === 'delete' && service === 'master' && !(await masterStopped(pod, ctx))) {
        return { namespace, name, ips: [] };
      }
      const ep = await ignoreNotFound(client.get<EndpointsObject>(Endpoints, name, namespace, { signal: ctx.signal }));
      if (!ep) return { namespace, name, ips: [] };
      return { namespace, name, ips: readyIps(ep), ports: ep.subsets?.[0]?.ports ?? [], existing: ep };
    },
    async desiredState(pod, ctx) {
      const { namespace, name } = target(pod);
      const svc = await ignoreNotFound(client.get<ServiceObject>(Services, name, namespace, { signal: ctx.signal }));
      const ports = portsFromService(svc);
      const ips = desiredIps(name, endpointIpOf(pod) as string, isPodReady(pod));
      return { namespace, name, ips, ...(ports ? { ports } : {}) };
    },
    updatePatch: (_pod, current, desired) => endpointsUpdatePatch(current, desired),
    deletePatch: (pod, current) => endpointsDeletePatch(current, endpointIpOf(pod) as string),
    async applyCreate(_pod, change, ctx) {
      // AlreadyExists is not ignored: somebody created it since we looked, so our IP is not in
      // it; the error makes the controller come back and take the update path.
      await client.create(Endpoints, endpointsObject(change), { signal: ctx.signal });
      ctx.log.info({ endpoints: change.name, ips: change.ips }, 'created endpoints');
    },
    async applyDelete(_pod, change, ctx) {
      const rv = change.existing?.metadata.resourceVersion;
      await ignoreNotFound(
        client.delete(Endpoints, change.name, change.namespace, {
          signal: ctx.signal,
          ...(rv ? { preconditions: { resourceVersion: rv } } : {}),
        }),
      );
      ctx.log.info({ endpoints: change.name }, 'deleted endpoints: no address left');
    },
    async applyUpdate(_pod, change, ctx) {
      // A PUT carrying the resourceVersion we read: a concurrent writer makes it fail with a
      // Conflict, which is thrown so the controller re-reads and retries.
      await client.update(Endpoints, endpointsObject(change), { signal: ctx.signal });
      ctx.log.info({ endpoints: change.name, ips: change.ips }, 'updated endpoints');
    },
  };

  /** A master keeps its IP while any of its containers runs: the drain still talks to its API. */
  async function masterStopped(pod: Pod, ctx: HandlerContext): Promise<boolean> {
    let fresh: Pod;
    try {
      fresh = await client.get<Pod>(Pods, pod.metadata.name as string, pod.metadata.namespace, { signal: ctx.signal });
    } catch (e) {
      if (isNotFound(e)) return true;
      throw e;
    }
    if (!isDeleting(fresh) || noContainerRunning(fresh)) return true;
    // Only this handler stops: the pod handler must still run to drain the master.
    ctx.cancelHandler('the master VM is still running');
    ctx.keepFinalizer('the master IP stays in the endpoints until its VM stopped');
    return false;
  }
}

export function endpointHandler(deps: KvmDeps): ResourceHandler<Pod> {
  return crudHandler(endpointResource(deps));
}
