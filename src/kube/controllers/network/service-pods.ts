// What the Endpoints and EndpointSlice controllers read alike from a Service and its pods
// (pkg/api/v1/pod/util.go FindPort; staging/src/k8s.io/endpointslice/util: ShouldPodBeInEndpoints,
// ShouldSetHostname; pkg/apis/core/v1/helper IsServiceIPSet).
import { isIP } from 'node:net';
import { isPodTerminal } from '../../../apimachinery/core/index.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { labelSelectorFromObject, type LabelMatcher } from '../../../apimachinery/selectors/index.ts';
import type { Storage } from '../../storage/storage.ts';
import { labelsOf, listObjects, type WorkloadObject } from '../workloads/common.ts';

export const SERVICE_PREFIX = '/core/services/';
export const POD_PREFIX = '/core/pods/';

/** v1.IsHeadlessService: set on Endpoints and EndpointSlices of services without a cluster IP. */
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
/** v1.EndpointsLastChangeTriggerTime. */
export const TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';

export interface ServicePort {
  name: string;
  protocol: string;
  port: number;
  targetPort: number | string;
  appProtocol?: string;
}

/**
 * The selector of a Service these controllers serve, or undefined when they leave it alone:
 * ExternalName services, services without a selector (their Endpoints are written by hand) and
 * `default/kubernetes`, which the API server keeps. An empty selector counts as none, as it does
 * once kube-apiserver stored it (protobuf drops empty maps).
 */
export function managedSelector(svc: WorkloadObject): LabelMatcher | undefined {
  if (svc.metadata.namespace === 'default' && svc.metadata.name === 'kubernetes') return undefined;
  if (svc.spec.type === 'ExternalName') return undefined;
  const selector = svc.spec.selector;
  if (!isObject(selector) || Object.keys(selector).length === 0) return undefined;
  return labelSelectorFromObject({ matchLabels: selector as Record<string, string> });
}

/** IsServiceIPSet: a cluster IP other than None. */
export function isHeadless(svc: WorkloadObject): boolean {
  const ip = svc.spec.clusterIP;
  return typeof ip !== 'string' || ip === '' || ip === 'None';
}

export function servicePorts(svc: WorkloadObject): ServicePort[] {
  const ports = Array.isArray(svc.spec.ports) ? svc.spec.ports.filter(isObject) : [];
  return ports.map((p) => {
    const port = typeof p.port === 'number' ? p.port : 0;
    const target = p.targetPort;
    const out: ServicePort = {
      name: typeof p.name === 'string' ? p.name : '',
      protocol: typeof p.protocol === 'string' ? p.protocol : 'TCP',
      port,
      // Defaulting makes targetPort the port when unset.
      targetPort: typeof target === 'number' || (typeof target === 'string' && target !== '') ? target : port,
    };
    if (typeof p.appProtocol === 'string') out.appProtocol = p.appProtocol;
    return out;
  });
}

/** The IP family a Service's endpoints are of: its first ipFamily, IPv4 by default. */
export function serviceFamily(svc: WorkloadObject): 'IPv4' | 'IPv6' {
  const families = svc.spec.ipFamilies;
  return Array.isArray(families) && families[0] === 'IPv6' ? 'IPv6' : 'IPv4';
}

/** The pod's IP of `family` (podIP, then podIPs), or undefined. */
export function podIpOf(pod: WorkloadObject, family: 'IPv4' | 'IPv6'): string | undefined {
  const want = family === 'IPv6' ? 6 : 4;
  const candidates: unknown[] = [pod.status.podIP];
  if (Array.isArray(pod.status.podIPs)) for (const p of pod.status.podIPs) if (isObject(p)) candidates.push(p.ip);
  return candidates.find((ip): ip is string => typeof ip === 'string' && isIP(ip) === want);
}

/** ShouldPodBeInEndpoints: not terminal, has an IP, and not terminating unless those are wanted. */
export function shouldPodBeInEndpoints(pod: WorkloadObject, includeTerminating: boolean): boolean {
  if (isPodTerminal(pod)) return false;
  const ips = pod.status.podIPs;
  if (!pod.status.podIP && !(Array.isArray(ips) && ips.length > 0)) return false;
  return includeTerminating || !pod.metadata.deletionTimestamp;
}

/** ShouldSetHostname: the pod names a hostname and this Service as its subdomain. */
export function hostnameFor(pod: WorkloadObject, svc: WorkloadObject): string | undefined {
  const { hostname, subdomain } = pod.spec;
  if (typeof hostname !== 'string' || hostname === '') return undefined;
  if (subdomain !== svc.metadata.name || pod.metadata.namespace !== svc.metadata.namespace) return undefined;
  return hostname;
}

/**
 * FindPort: a numeric targetPort as is; a named one from the pod's containers (then its sidecar
 * init containers) with that port name and protocol. Undefined when the pod has no such port.
 */
export function findPort(pod: WorkloadObject, port: ServicePort): number | undefined {
  if (typeof port.targetPort === 'number') return port.targetPort;
  const containers = [
    ...(Array.isArray(pod.spec.containers) ? pod.spec.containers.filter(isObject) : []),
    ...(Array.isArray(pod.spec.initContainers)
      ? pod.spec.initContainers.filter((c) => isObject(c) && c.restartPolicy === 'Always')
      : []),
  ] as JsonObject[];
  for (const c of containers) {
    for (const p of Array.isArray(c.ports) ? c.ports.filter(isObject) : []) {
      const protocol = typeof p.protocol === 'string' ? p.protocol : 'TCP';
      if (p.name === port.targetPort && protocol === port.protocol && typeof p.containerPort === 'number')
        return p.containerPort;
    }
  }
  return undefined;
}

/** The pods of `namespace` a selector picks. */
export function selectedPods(storage: Storage, namespace: string, selector: LabelMatcher): WorkloadObject[] {
  return listObjects(storage, POD_PREFIX, namespace).filter((p) => selector.matches(labelsOf(p)));
}

/** A pod reference as both controllers write it (no resourceVersion). */
export function podRef(pod: WorkloadObject): JsonObject {
  return { kind: 'Pod', namespace: pod.metadata.namespace!, name: pod.metadata.name!, uid: pod.metadata.uid! };
}
