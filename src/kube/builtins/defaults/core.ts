// Defaults for the core/v1 kinds other than pods and pod-template holders: Service, Namespace,
// Node, Secret, PersistentVolumeClaim, PersistentVolume, Event, Endpoints, LimitRange and
// ResourceQuota. Create-only steps (status reset, namespace finalizer, Service IP families) are
// what the kind's strategy does in PrepareForCreate.
import { Buffer } from 'node:buffer';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { defaultPvcSpec } from './pod.ts';
import { ensureObj, isEmptyString, isNil, obj, objects, setIfEmpty, setIfNil, str } from '../json.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import type { DefaultsOptions } from './options.ts';
import { canonicalizeResourceList } from '../quantity.ts';
import { initServiceIpFamilies, normalizeClusterIps } from '../service.ts';

/** Whether the Service is reachable from outside the cluster (service.ExternallyAccessible). */
export function externallyAccessible(spec: JsonObject): boolean {
  const type = spec.type;
  return (
    type === 'LoadBalancer' ||
    type === 'NodePort' ||
    (type === 'ClusterIP' && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0)
  );
}

function defaultService(o: JsonObject, op: 'create' | 'update', opts: DefaultsOptions): void {
  const spec = ensureObj(o, 'spec');
  setIfEmpty(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const timeout = obj(obj(spec, 'sessionAffinityConfig'), 'clientIP')?.timeoutSeconds;
    if (timeout === undefined || timeout === null) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  setIfEmpty(spec, 'type', 'ClusterIP');
  for (const p of objects(spec, 'ports')) {
    setIfEmpty(p, 'protocol', 'TCP');
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '')
      p.targetPort = p.port ?? 0;
  }
  if (externallyAccessible(spec)) setIfEmpty(spec, 'externalTrafficPolicy', 'Cluster');
  if (isNil(spec, 'internalTrafficPolicy') && ['NodePort', 'LoadBalancer', 'ClusterIP'].includes(String(spec.type))) {
    spec.internalTrafficPolicy = 'Cluster';
  }
  if (spec.type === 'LoadBalancer') {
    setIfNil(spec, 'allocateLoadBalancerNodePorts', true);
    for (const ing of objects(obj(obj(o, 'status'), 'loadBalancer'), 'ingress')) {
      if (!isEmptyString(ing, 'ip')) setIfNil(ing, 'ipMode', 'VIP');
    }
  }
  if (op === 'create') {
    o.status = {};
    normalizeClusterIps(spec, undefined);
    initServiceIpFamilies(spec, undefined, opts.serviceIpFamily ?? 'IPv4');
  }
  // LoadBalancerStatus is a struct: Go writes `loadBalancer: {}` even when empty.
  ensureObj(ensureObj(o, 'status'), 'loadBalancer');
}

function defaultNamespace(o: JsonObject, op: 'create' | 'update'): void {
  const md = ensureObj(o, 'metadata');
  const name = str(md, 'name');
  if (name) ensureObj(md, 'labels')['kubernetes.io/metadata.name'] = name;
  const spec = ensureObj(o, 'spec');
  if (op === 'create') {
    // Required on create only: the namespace controller removes it while terminating.
    const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
    if (!finalizers.includes('kubernetes')) spec.finalizers = [...finalizers, 'kubernetes'];
    o.status = { phase: 'Active' };
  }
  setIfEmpty(ensureObj(o, 'status'), 'phase', 'Active');
}

const NODE_INFO_FIELDS = [
  'architecture',
  'bootID',
  'containerRuntimeVersion',
  'kernelVersion',
  'kubeProxyVersion',
  'kubeletVersion',
  'machineID',
  'operatingSystem',
  'osImage',
  'systemUUID',
];

function defaultNode(o: JsonObject): void {
  ensureObj(o, 'spec');
  const status = ensureObj(o, 'status');
  const capacity = obj(status, 'capacity');
  if (capacity && isNil(status, 'allocatable')) status.allocatable = { ...capacity };
  canonicalizeResourceList(obj(status, 'capacity'));
  canonicalizeResourceList(obj(status, 'allocatable'));
  // NodeStatus embeds these as structs with non-omitempty fields: Go always writes them.
  const endpoint = ensureObj(ensureObj(status, 'daemonEndpoints'), 'kubeletEndpoint');
  setIfNil(endpoint, 'Port', 0);
  const info = ensureObj(status, 'nodeInfo');
  for (const f of NODE_INFO_FIELDS) setIfNil(info, f, '');
}

function defaultSecret(o: JsonObject): void {
  setIfEmpty(o, 'type', 'Opaque');
  // stringData is write-only: it overwrites data keys and is never stored.
  const stringData = obj(o, 'stringData');
  if (stringData && Object.keys(stringData).length > 0) {
    const data = ensureObj(o, 'data');
    for (const [k, v] of Object.entries(stringData))
      data[k] = Buffer.from(typeof v === 'string' ? v : '', 'utf8').toString('base64');
  }
  delete o.stringData;
}

function defaultPvc(o: JsonObject, op: 'create' | 'update'): void {
  defaultPvcSpec(ensureObj(o, 'spec'));
  if (op === 'create') o.status = {};
  const status = ensureObj(o, 'status');
  setIfEmpty(status, 'phase', 'Pending');
  canonicalizeResourceList(obj(status, 'capacity'));
  canonicalizeResourceList(obj(status, 'allocatedResources'));
}

function defaultPv(o: JsonObject, op: 'create' | 'update', opts: DefaultsOptions): void {
  const spec = ensureObj(o, 'spec');
  setIfEmpty(spec, 'persistentVolumeReclaimPolicy', 'Retain');
  setIfNil(spec, 'volumeMode', 'Filesystem');
  canonicalizeResourceList(obj(spec, 'capacity'));
  const hostPath = obj(spec, 'hostPath');
  if (hostPath) setIfNil(hostPath, 'type', '');
  if (op === 'create') o.status = { phase: 'Pending', lastPhaseTransitionTime: formatTime(opts.now?.() ?? new Date()) };
  setIfEmpty(ensureObj(o, 'status'), 'phase', 'Pending');
}

function defaultEvent(o: JsonObject): void {
  // Struct and non-omitempty fields Go writes even when unset.
  ensureObj(o, 'involvedObject');
  ensureObj(o, 'source');
  for (const f of ['firstTimestamp', 'lastTimestamp', 'eventTime']) if (!(f in o)) o[f] = null;
  for (const f of ['reportingComponent', 'reportingInstance']) setIfNil(o, f, '');
}

function defaultEndpoints(o: JsonObject): void {
  for (const subset of objects(o, 'subsets'))
    for (const p of objects(subset, 'ports')) setIfEmpty(p, 'protocol', 'TCP');
}

function defaultLimitRange(o: JsonObject): void {
  for (const item of objects(obj(o, 'spec'), 'limits')) {
    if (item.type === 'Container') {
      const def = ensureObj(item, 'default');
      const defReq = ensureObj(item, 'defaultRequest');
      for (const [k, v] of Object.entries(obj(item, 'max') ?? {})) if (!(k in def)) def[k] = v;
      for (const [k, v] of Object.entries(def)) if (!(k in defReq)) defReq[k] = v;
      for (const [k, v] of Object.entries(obj(item, 'min') ?? {})) if (!(k in defReq)) defReq[k] = v;
    }
    for (const k of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'])
      canonicalizeResourceList(obj(item, k));
  }
}

function defaultResourceQuota(o: JsonObject): void {
  canonicalizeResourceList(obj(obj(o, 'spec'), 'hard'));
  canonicalizeResourceList(obj(obj(o, 'status'), 'hard'));
  canonicalizeResourceList(obj(obj(o, 'status'), 'used'));
}

/** Returns false when the kind is not a core kind handled here. */
export function defaultCoreKind(kind: string, o: JsonObject, op: 'create' | 'update', opts: DefaultsOptions): boolean {
  switch (kind) {
    case 'Service':
      defaultService(o, op, opts);
      return true;
    case 'Namespace':
      defaultNamespace(o, op);
      return true;
    case 'Node':
      defaultNode(o);
      return true;
    case 'Secret':
      defaultSecret(o);
      return true;
    case 'PersistentVolumeClaim':
      defaultPvc(o, op);
      return true;
    case 'PersistentVolume':
      defaultPv(o, op, opts);
      return true;
    case 'Event':
      defaultEvent(o);
      return true;
    case 'Endpoints':
      defaultEndpoints(o);
      return true;
    case 'LimitRange':
      defaultLimitRange(o);
      return true;
    case 'ResourceQuota':
      defaultResourceQuota(o);
      return true;
    case 'ConfigMap':
    case 'ServiceAccount':
      return true;
    default:
      return false;
  }
}
