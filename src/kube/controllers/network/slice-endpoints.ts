// The endpoints a Service's EndpointSlices should hold (staging/src/k8s.io/endpointslice/utils.go
// podToEndpoint, getEndpointPorts; reconciler.go getAddressTypesForService): one per selected pod
// with an IP of the slice's address type, terminating pods included, with the ports its
// containers resolve the Service's targetPorts to.
import { isPodReady } from '../../../apimachinery/core/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { WorkloadObject } from '../workloads/common.ts';
import {
  findPort,
  hostnameFor,
  podIpOf,
  podRef,
  serviceFamily,
  servicePorts,
  shouldPodBeInEndpoints,
} from './service-pods.ts';

export interface DesiredEndpoint {
  endpoint: JsonObject;
  ports: JsonObject[];
  /** Identifies the port set: slices hold endpoints of one port set only. */
  portsKey: string;
}

/** A port set's identity, independent of the key order it was stored with. */
export function portsKeyOf(ports: unknown[]): string {
  return JSON.stringify(
    ports.map((p) => {
      const o = (p ?? {}) as JsonObject;
      return [o.name ?? '', o.protocol ?? 'TCP', o.port ?? null, o.appProtocol ?? null];
    }),
  );
}

/** The zone label of the pod's node, which kube copies into the endpoint. */
export type ZoneOf = (nodeName: string) => string | undefined;

export function desiredEndpoints(
  svc: WorkloadObject,
  pods: WorkloadObject[],
  zoneOf: ZoneOf,
): { addressType: 'IPv4' | 'IPv6'; endpoints: DesiredEndpoint[] } {
  const addressType = serviceFamily(svc);
  const servicePortList = servicePorts(svc);
  const publishNotReady = svc.spec.publishNotReadyAddresses === true;
  const endpoints: DesiredEndpoint[] = [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ip = podIpOf(pod, addressType);
    if (!ip) continue;
    const serving = isPodReady(pod);
    const terminating = Boolean(pod.metadata.deletionTimestamp);
    // For compatibility, a terminating pod is never ready unless publishNotReadyAddresses.
    const ready = publishNotReady || (serving && !terminating);
    const endpoint: JsonObject = { addresses: [ip], conditions: { ready, serving, terminating } };
    const hostname = hostnameFor(pod, svc);
    if (hostname) endpoint.hostname = hostname;
    endpoint.targetRef = podRef(pod);
    const nodeName = typeof pod.spec.nodeName === 'string' ? pod.spec.nodeName : '';
    if (nodeName) {
      endpoint.nodeName = nodeName;
      const zone = zoneOf(nodeName);
      if (zone) endpoint.zone = zone;
    }
    const ports: JsonObject[] = [];
    for (const sp of servicePortList) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      ports.push({
        name: sp.name,
        protocol: sp.protocol,
        port,
        ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}),
      });
    }
    endpoints.push({ endpoint, ports, portsKey: portsKeyOf(ports) });
  }
  return { addressType, endpoints };
}
