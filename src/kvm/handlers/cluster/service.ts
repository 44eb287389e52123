// The cluster's two Services, both WITHOUT a selector: the drainer controller owns their Endpoints
// (a VM's IP is only known from its pod's annotation, and leaves the list only once drained).
//   master: ClusterIP, ports etcd 2379 and api <securePort>, annotated with the etcd domain;
//   worker: NodePort, ports from spec.kvm.portMappings (port = targetPort = mapping.targetPort,
//           nodePort = mapping.nodePort), or by default http 30010 and https 30011.
// The default ports leave the MC nodePort to the API server, as upstream: a fixed nodePort would
// collide between two clusters on the same management cluster.
// Updates keep what the server assigned (clusterIP(s), allocated nodePorts) and labels or
// annotations others added: only our fields are compared and written.
import { Services } from '../../../runtime/index.ts';
import type { KubeObject, ResourceHandler } from '../../../runtime/index.ts';
import { Annotations, Labels } from '../../api/labels.ts';
import type { NodeRole } from '../../api/labels.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { KvmDeps } from '../../deps.ts';
import { apiSecurePort, clusterNamespace, etcdDomain, managedLabels } from '../../key.ts';
import { isSubset } from './meta-compare.ts';
import { fixedObjectsHandler } from './fixed-objects.ts';

export const ETCD_PORT = 2379;
/** The worker ports of clusters without portMappings (upstream's compatibility default). */
export const DEFAULT_WORKER_PORTS: readonly ServicePort[] = Object.freeze([
  { name: 'http', protocol: 'TCP', port: 30010, targetPort: 30010 },
  { name: 'https', protocol: 'TCP', port: 30011, targetPort: 30011 },
]);

export interface ServicePort {
  name?: string;
  protocol?: string;
  port: number;
  targetPort?: number | string;
  nodePort?: number;
}

export interface ServiceSpec {
  type?: string;
  ports?: ServicePort[];
  selector?: Record<string, string>;
  clusterIP?: string;
  clusterIPs?: string[];
  [key: string]: unknown;
}

export interface Service extends KubeObject {
  spec: ServiceSpec;
}

export function workerServicePorts(c: KVMConfig): ServicePort[] {
  const mappings = c.spec.kvm.portMappings ?? [];
  if (mappings.length === 0) return DEFAULT_WORKER_PORTS.map((p) => ({ ...p }));
  return mappings.map((m) => ({
    name: m.name,
    protocol: 'TCP',
    port: m.targetPort,
    targetPort: m.targetPort,
    nodePort: m.nodePort,
  }));
}

function service(c: KVMConfig, role: NodeRole, spec: ServiceSpec, annotations?: Record<string, string>): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: role,
      namespace: clusterNamespace(c),
      labels: { ...managedLabels(c), [Labels.app]: role },
      ...(annotations ? { annotations } : {}),
    },
    spec,
  };
}

export function desiredServices(c: KVMConfig): Service[] {
  const api = apiSecurePort(c);
  return [
    service(
      c,
      'master',
      {
        type: 'ClusterIP',
        ports: [
          { name: 'etcd', protocol: 'TCP', port: ETCD_PORT, targetPort: ETCD_PORT },
          { name: 'api', protocol: 'TCP', port: api, targetPort: api },
        ],
      },
      { [Annotations.etcdDomain]: `${etcdDomain(c)}:443` },
    ),
    service(c, 'worker', { type: 'NodePort', ports: workerServicePorts(c) }),
  ];
}

/**
 * Port lists are equal when, position by position, name, protocol (default TCP), port and
 * targetPort (default: port) match, and the nodePort matches where `desired` pins one (an unpinned
 * nodePort is the server's choice).
 */
export function portsEqual(current: ServicePort[] = [], desired: ServicePort[] = []): boolean {
  if (current.length !== desired.length) return false;
  return desired.every((d, i) => {
    const c = current[i];
    return (
      (c.name ?? '') === (d.name ?? '') &&
      (c.protocol ?? 'TCP') === (d.protocol ?? 'TCP') &&
      c.port === d.port &&
      String(c.targetPort ?? c.port) === String(d.targetPort ?? d.port) &&
      (d.nodePort === undefined || c.nodePort === d.nodePort)
    );
  });
}

export function isServiceModified(current: Service, desired: Service): boolean {
  return (
    (current.spec.type ?? 'ClusterIP') !== (desired.spec.type ?? 'ClusterIP') ||
    !portsEqual(current.spec.ports, desired.spec.ports) ||
    Object.keys(current.spec.selector ?? {}).length > 0 ||
    !isSubset(current.metadata.labels, desired.metadata.labels) ||
    !isSubset(current.metadata.annotations, desired.metadata.annotations)
  );
}

/** `current` with our type, ports, labels and annotations; server-assigned fields are kept. */
export function mergeService(current: Service, desired: Service): Service {
  const nodePorts = new Map((current.spec.ports ?? []).map((p) => [p.name ?? '', p.nodePort]));
  const nodePortType = desired.spec.type === 'NodePort' || desired.spec.type === 'LoadBalancer';
  const ports = (desired.spec.ports ?? []).map((p) => {
    if (!nodePortType) return { ...p, nodePort: undefined };
    // Keep an allocated nodePort rather than have the server pick (and clients learn) a new one.
    const kept = nodePorts.get(p.name ?? '');
    return p.nodePort === undefined && kept !== undefined ? { ...p, nodePort: kept } : p;
  });
  const spec: ServiceSpec = { ...current.spec, type: desired.spec.type, ports };
  delete spec.selector;
  return {
    ...current,
    metadata: {
      ...current.metadata,
      labels: { ...current.metadata.labels, ...desired.metadata.labels },
      annotations: { ...current.metadata.annotations, ...desired.metadata.annotations },
    },
    spec,
  };
}

export function serviceHandler(deps: KvmDeps): ResourceHandler<KVMConfig> {
  return fixedObjectsHandler<Service>(deps, {
    name: 'service',
    type: Services,
    desired: desiredServices,
    isModified: isServiceModified,
    merge: mergeService,
  });
}
