// Downward API values, shared by env (valueFrom.fieldRef / resourceFieldRef) and downwardAPI
// volumes: kubelet's podFieldSelectorRuntimeValue, pkg/fieldpath/fieldpath.go
// (ExtractFieldPathAsString, FormatMap) and pkg/api/v1/resource/helpers.go
// (ExtractContainerResourceValue), with the limits a container leaves unset defaulted to the
// node's allocatable as kubelet's defaultPodLimitsForDownwardAPI does.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { Quantity, tryQuantityFromJSON } from '../../../apimachinery/quantity/index.ts';
import { goQuote } from '../../../apimachinery/strings/index.ts';
import { ContainerConfigError } from './container-config.ts';

export interface PodAddresses {
  podIPs: string[];
  hostIPs: string[];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function stringMap(v: unknown): Record<string, string> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {};
}

/** FormatMap: `key="value"` lines in key order, values quoted as Go's strconv.Quote. */
export function formatMap(m: Record<string, string>): string {
  return Object.keys(m)
    .sort()
    .map((k) => `${k}=${goQuote(m[k])}`)
    .join('\n');
}

/** SplitMaybeSubscriptedPath: `metadata.labels['k']` → [`metadata.labels`, `k`]. */
function splitSubscript(fieldPath: string): [string, string] | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const s = fieldPath.slice(0, -2);
  const i = s.indexOf("['");
  if (i <= 0) return undefined;
  return [s.slice(0, i), s.slice(i + 2)];
}

/** The metadata fields (what a downwardAPI volume may reference). */
export function metadataFieldValue(fieldPath: string, pod: JsonObject): string {
  const meta = (pod.metadata ?? {}) as JsonObject;
  const sub = splitSubscript(fieldPath);
  if (sub) {
    const [path, key] = sub;
    if (path === 'metadata.annotations') return str(stringMap(meta.annotations)[key]);
    if (path === 'metadata.labels') return str(stringMap(meta.labels)[key]);
    throw new ContainerConfigError(`fieldPath ${goQuote(fieldPath)} does not support subscript`);
  }
  switch (fieldPath) {
    case 'metadata.annotations':
      return formatMap(stringMap(meta.annotations));
    case 'metadata.labels':
      return formatMap(stringMap(meta.labels));
    case 'metadata.name':
      return str(meta.name);
    case 'metadata.namespace':
      return str(meta.namespace);
    case 'metadata.uid':
      return str(meta.uid);
  }
  throw new ContainerConfigError(`unsupported fieldPath: ${fieldPath}`);
}

/** An env var's fieldRef: the metadata fields plus the node, service account and IPs. */
export function podFieldValue(fieldPath: string, pod: JsonObject, addresses: PodAddresses): string {
  const spec = (pod.spec ?? {}) as JsonObject;
  switch (fieldPath) {
    case 'spec.nodeName':
      return str(spec.nodeName);
    case 'spec.serviceAccountName':
      return str(spec.serviceAccountName);
    case 'status.hostIP':
      return addresses.hostIPs[0] ?? '';
    case 'status.hostIPs':
      return addresses.hostIPs.join(',');
    case 'status.podIP':
      return addresses.podIPs[0] ?? '';
    case 'status.podIPs':
      return addresses.podIPs.join(',');
  }
  return metadataFieldValue(fieldPath, pod);
}

/** The IPs kube takes from the pod's status (the sandbox exists before containers are configured). */
export function podAddresses(pod: JsonObject, nodeIPs: string[]): PodAddresses {
  const status = (pod.status ?? {}) as JsonObject;
  const ips = (key: string, single: string): string[] => {
    const list = ((status[key] ?? []) as JsonObject[]).map((e) => str(e.ip)).filter(Boolean);
    if (list.length === 0 && str(status[single])) list.push(str(status[single]));
    return list;
  };
  const hostIPs = ips('hostIPs', 'hostIP');
  return { podIPs: ips('podIPs', 'podIP'), hostIPs: hostIPs.length > 0 ? hostIPs : nodeIPs };
}

export interface ResourceFieldSelector {
  containerName?: string;
  resource: string;
  divisor?: unknown;
}

const DEFAULTED_LIMITS = ['cpu', 'memory', 'ephemeral-storage'];

function containerNamed(pod: JsonObject, name: string): JsonObject {
  const spec = (pod.spec ?? {}) as JsonObject;
  const all = [...((spec.containers ?? []) as JsonObject[]), ...((spec.initContainers ?? []) as JsonObject[])];
  const found = all.find((c) => c.name === name);
  if (!found) throw new ContainerConfigError(`container ${name} not found`);
  return found;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new ContainerConfigError('divisor must not be zero');
  const q = a / b;
  return a % b !== 0n && a > 0n === b > 0n ? q + 1n : q;
}

/**
 * A container's resource, as an integer number of `divisor` units rounded up. `allocatable` is
 * the node's: limits the container leaves unset report it, as on a real node.
 */
export function containerResourceValue(
  fs: ResourceFieldSelector,
  pod: JsonObject,
  container: JsonObject,
  allocatable: Record<string, unknown>,
): string {
  const target = fs.containerName ? containerNamed(pod, fs.containerName) : container;
  const resources = (target.resources ?? {}) as JsonObject;
  const dot = fs.resource.indexOf('.');
  const kind = fs.resource.slice(0, dot);
  const name = fs.resource.slice(dot + 1);
  const supported = DEFAULTED_LIMITS.includes(name) || name.startsWith('hugepages-');
  if ((kind !== 'limits' && kind !== 'requests') || !supported)
    throw new ContainerConfigError(`unsupported container resource : ${fs.resource}`);
  const set = stringMap(resources[kind]) as Record<string, unknown>;
  let value = tryQuantityFromJSON(set[name]);
  if (!value && kind === 'limits' && DEFAULTED_LIMITS.includes(name)) value = tryQuantityFromJSON(allocatable[name]);
  const amount = value ?? Quantity.zero();
  const divisor = tryQuantityFromJSON(fs.divisor);
  const unit = divisor && !divisor.isZero() ? divisor : tryQuantityFromJSON('1')!;
  if (name === 'cpu') return ceilDiv(amount.toMilli(), unit.toMilli()).toString();
  return ceilDiv(amount.toBigInt(), unit.toBigInt()).toString();
}
