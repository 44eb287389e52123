// Service fields the server fills in or carries over itself: clusterIP/clusterIPs kept in sync,
// IP family defaults on a single-stack cluster, allocated values (clusterIP, nodePorts,
// healthCheckNodePort) patched back into updates that omit them, fields dropped on a type
// change, and ClusterIP allocation against a ClusterIpAllocator.
import { internalError, invalid } from '../../apimachinery/errors/index.ts';
import type { JsonObject, JsonValue } from '../../apimachinery/meta/index.ts';
import { ClusterIpAllocationError, type ClusterIpAllocator, type IpFamily } from './clusterip.ts';
import { fieldInvalid } from '../../apimachinery/validation/field-errors.ts';
import { goStringSliceValue } from './go.ts';
import { isEmptyString, isNil, obj, objects, str, strings } from './json.ts';
import { parseIpSloppy } from './names.ts';
import { deepEqual } from '../../apimachinery/json/index.ts';

const needsClusterIp = (spec: JsonObject | undefined): boolean => spec?.type !== 'ExternalName';
const needsNodePort = (spec: JsonObject | undefined): boolean =>
  spec?.type === 'NodePort' || spec?.type === 'LoadBalancer';
const needsHcNodePort = (spec: JsonObject | undefined): boolean =>
  spec?.type === 'LoadBalancer' && spec?.externalTrafficPolicy === 'Local';

function clusterIps(spec: JsonObject | undefined): string[] {
  return Array.isArray(spec?.clusterIPs) ? strings(spec, 'clusterIPs') : [];
}

function isHeadless(spec: JsonObject): boolean {
  const ips = clusterIps(spec);
  return (ips.length > 0 ? ips[0] : str(spec, 'clusterIP')) === 'None';
}

/** NormalizeClusterIPs: keep clusterIP (old clients) and clusterIPs (new clients) consistent. */
export function normalizeClusterIps(spec: JsonObject, oldSpec: JsonObject | undefined): void {
  const ip = str(spec, 'clusterIP') ?? '';
  if (!oldSpec) {
    if (ip && clusterIps(spec).length === 0) spec.clusterIPs = [ip];
    return;
  }
  const oldIp = str(oldSpec, 'clusterIP') ?? '';
  if (clusterIps(oldSpec).length > 0 && clusterIps(spec).length === 0 && oldIp === ip)
    spec.clusterIPs = [...clusterIps(oldSpec)];
  if (oldIp !== ip) {
    const same = deepEqual(clusterIps(oldSpec), clusterIps(spec));
    if (oldIp && !ip) {
      if (same) delete spec.clusterIPs;
    } else if (same) {
      spec.clusterIPs = [ip];
    }
  }
}

/** patchAllocatedValues: a resubmitted manifest that omits what the server allocated keeps it. */
export function patchAllocatedValues(spec: JsonObject, oldSpec: JsonObject): void {
  if (needsClusterIp(oldSpec) && needsClusterIp(spec)) {
    if (isEmptyString(spec, 'clusterIP') && !isEmptyString(oldSpec, 'clusterIP')) spec.clusterIP = oldSpec.clusterIP;
    if (clusterIps(spec).length === 0 && clusterIps(oldSpec).length > 0) spec.clusterIPs = [...clusterIps(oldSpec)];
  }
  if (needsNodePort(oldSpec) && needsNodePort(spec)) {
    const usedNew = new Set(
      objects(spec, 'ports')
        .map((p) => p.nodePort)
        .filter((n) => typeof n === 'number' && n !== 0),
    );
    const byName = new Map<string, JsonValue | undefined>();
    for (const p of objects(oldSpec, 'ports')) byName.set(str(p, 'name') ?? '', p.nodePort);
    for (const p of objects(spec, 'ports')) {
      if (p.nodePort === undefined || p.nodePort === null || p.nodePort === 0) {
        const oldVal = byName.get(str(p, 'name') ?? '');
        if (typeof oldVal === 'number' && oldVal !== 0 && !usedNew.has(oldVal)) p.nodePort = oldVal;
      }
    }
  }
  if (needsHcNodePort(oldSpec) && needsHcNodePort(spec) && isNil(spec, 'healthCheckNodePort')) {
    if (!isNil(oldSpec, 'healthCheckNodePort')) spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
  }
}

/** dropTypeDependentFields: on a type change, clear what the old type had and the user kept as is. */
export function dropTypeDependentFields(spec: JsonObject, oldSpec: JsonObject): void {
  if (needsClusterIp(oldSpec) && !needsClusterIp(spec)) {
    if (
      deepEqual(clusterIps(oldSpec), clusterIps(spec)) &&
      (str(oldSpec, 'clusterIP') ?? '') === (str(spec, 'clusterIP') ?? '')
    ) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (deepEqual(oldSpec.ipFamilies, spec.ipFamilies)) delete spec.ipFamilies;
    if (deepEqual(oldSpec.ipFamilyPolicy, spec.ipFamilyPolicy)) delete spec.ipFamilyPolicy;
  }
  const nodePorts = (s: JsonObject): unknown[] => objects(s, 'ports').map((p) => p.nodePort ?? 0);
  if (needsNodePort(oldSpec) && !needsNodePort(spec) && deepEqual(nodePorts(oldSpec), nodePorts(spec))) {
    for (const p of objects(spec, 'ports')) delete p.nodePort;
  }
  if (
    needsHcNodePort(oldSpec) &&
    !needsHcNodePort(spec) &&
    deepEqual(oldSpec.healthCheckNodePort, spec.healthCheckNodePort)
  ) {
    delete spec.healthCheckNodePort;
  }
  if (oldSpec.type === 'LoadBalancer' && spec.type !== 'LoadBalancer') {
    if (deepEqual(oldSpec.allocateLoadBalancerNodePorts, spec.allocateLoadBalancerNodePorts))
      delete spec.allocateLoadBalancerNodePorts;
    if (deepEqual(oldSpec.loadBalancerClass, spec.loadBalancerClass)) delete spec.loadBalancerClass;
  }
  const external = (s: JsonObject): boolean =>
    s.type === 'LoadBalancer' ||
    s.type === 'NodePort' ||
    (s.type === 'ClusterIP' && Array.isArray(s.externalIPs) && s.externalIPs.length > 0);
  if (external(oldSpec) && !external(spec) && deepEqual(oldSpec.externalTrafficPolicy, spec.externalTrafficPolicy)) {
    delete spec.externalTrafficPolicy;
  }
}

function otherFamily(f: IpFamily): IpFamily {
  return f === 'IPv4' ? 'IPv6' : 'IPv4';
}

/**
 * initIPFamilyFields for a single-stack cluster: ipFamilyPolicy (kept from the old object on
 * update; RequireDualStack for a headless Service without selector, else SingleStack) and
 * ipFamilies inferred from clusterIPs or the cluster's family. Conflicts are left for validation.
 */
export function initServiceIpFamilies(
  spec: JsonObject,
  oldSpec: JsonObject | undefined,
  clusterFamily: IpFamily,
): void {
  if (spec.type === 'ExternalName') return;
  const selector = obj(spec, 'selector');
  const selectorless = !selector || Object.keys(selector).length === 0;
  const headless = isHeadless(spec);
  if (isNil(spec, 'ipFamilyPolicy')) {
    if (oldSpec && !isNil(oldSpec, 'ipFamilyPolicy')) spec.ipFamilyPolicy = oldSpec.ipFamilyPolicy;
    else spec.ipFamilyPolicy = headless && selectorless ? 'RequireDualStack' : 'SingleStack';
  }
  const families: string[] = Array.isArray(spec.ipFamilies) ? strings(spec, 'ipFamilies') : [];
  if (oldSpec && spec.ipFamilyPolicy === 'SingleStack') {
    const ips = clusterIps(spec);
    if (deepEqual(clusterIps(oldSpec), ips) && ips.length > 1) spec.clusterIPs = ips.slice(0, 1);
    if (deepEqual(oldSpec.ipFamilies, spec.ipFamilies) && families.length > 1) families.splice(1);
  }
  clusterIps(spec).forEach((ip, i) => {
    if (ip === 'None' || i < families.length) return;
    const fam = parseIpSloppy(ip);
    // Only the cluster's own family can be inferred; anything else is validation's to reject.
    if (fam && (fam === 4 ? 'IPv4' : 'IPv6') === clusterFamily) families.push(clusterFamily);
  });
  if (headless && selectorless) {
    if (families.length === 0) families.push(clusterFamily);
    if (families.length < 2 && spec.ipFamilyPolicy !== 'SingleStack')
      families.push(otherFamily(families[0] as IpFamily));
  } else if (families.length === 0) {
    families.push(clusterFamily);
  }
  spec.ipFamilies = families;
}

function allocationError(service: JsonObject, requested: string, e: unknown): Error {
  const name = str(obj(service, 'metadata'), 'name') ?? '';
  if (e instanceof ClusterIpAllocationError && e.reason !== 'Full') {
    const ips = clusterIps(obj(service, 'spec'));
    const cause = fieldInvalid(
      'spec.clusterIPs',
      goStringSliceValue(ips.length ? ips : [requested]),
      `failed to allocate IP ${requested}: ${e.message}`,
    );
    return invalid('', 'Service', name, [{ reason: cause.reason, message: cause.message, field: cause.field }]);
  }
  const why = e instanceof Error ? e.message : String(e);
  return internalError(`failed to allocate a serviceIP: ${why}`);
}

/**
 * Gives a new Service its ClusterIP (the requested one or the next free), setting clusterIP and
 * clusterIPs. Returns the allocated address so the caller can release it if the write fails;
 * undefined for ExternalName and headless Services. Throws kube's 422 or 500 StatusError.
 */
export function assignClusterIp(service: JsonObject, allocator: ClusterIpAllocator): string | undefined {
  const spec = obj(service, 'spec');
  if (!spec || !needsClusterIp(spec) || isHeadless(spec)) return undefined;
  const requested = clusterIps(spec)[0] ?? str(spec, 'clusterIP') ?? '';
  let ip: string;
  try {
    ip = allocator.allocate(requested || undefined);
  } catch (e) {
    throw allocationError(service, requested, e);
  }
  spec.clusterIP = ip;
  spec.clusterIPs = [ip, ...clusterIps(spec).slice(1)];
  return ip;
}

/**
 * ClusterIP bookkeeping for an update: a Service leaving ExternalName gets an address now; one
 * becoming ExternalName gives its address back (returned as `release`, to be released once the
 * write has been committed).
 */
export function reconcileClusterIp(
  service: JsonObject,
  old: JsonObject,
  allocator: ClusterIpAllocator,
): { allocated?: string; release?: string } {
  const spec = obj(service, 'spec');
  const oldSpec = obj(old, 'spec');
  if (!spec || !oldSpec) return {};
  if (!needsClusterIp(oldSpec) && needsClusterIp(spec)) return { allocated: assignClusterIp(service, allocator) };
  if (isHeadless(oldSpec)) return {};
  if (needsClusterIp(oldSpec) && !needsClusterIp(spec)) {
    const ip = clusterIps(oldSpec)[0] ?? str(oldSpec, 'clusterIP');
    return ip ? { release: ip } : {};
  }
  return {};
}
