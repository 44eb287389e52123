// API discovery: the legacy documents every client understands (/api, /apis, /api/v1,
// /apis/<g>/<v>) and the aggregated form (apidiscovery.k8s.io/v2) newer kubectl asks for first.
import type { ResourceCatalog } from '../registry/catalog.ts';
import type { ResourceDef } from '../registry/resource.ts';
import { KUBE_VERSION } from '../version.ts';

export function versionInfo(): Record<string, string> {
  return {
    major: KUBE_VERSION.major,
    minor: KUBE_VERSION.minor,
    gitVersion: KUBE_VERSION.gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsx',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

const SUBRESOURCE_VERBS: Record<string, string[]> = {
  status: ['get', 'patch', 'update'],
  scale: ['get', 'patch', 'update'],
  binding: ['create'],
  eviction: ['create'],
  token: ['create'],
  finalize: ['update'],
  // Served by the kubelet through the API server (server/streaming): WebSocket GET or SPDY POST.
  attach: ['create', 'get'],
  exec: ['create', 'get'],
  portforward: ['create', 'get'],
  log: ['get'],
};

/** Kinds of the kubelet subresources, as kube-apiserver lists them. */
const STREAMING_KINDS: Record<string, string> = {
  attach: 'PodAttachOptions',
  exec: 'PodExecOptions',
  portforward: 'PodPortForwardOptions',
};

function subresourceKind(def: ResourceDef, sub: string): { group: string; version: string; kind: string } {
  if (sub === 'scale') return { group: 'autoscaling', version: 'v1', kind: 'Scale' };
  if (sub === 'binding') return { group: '', version: 'v1', kind: 'Binding' };
  // kubectl drain looks for pods/eviction with a group and version (CheckEvictionSupport).
  if (sub === 'eviction') return { group: 'policy', version: 'v1', kind: 'Eviction' };
  if (sub === 'token') return { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };
  if (STREAMING_KINDS[sub]) return { group: '', version: 'v1', kind: STREAMING_KINDS[sub] };
  return { group: def.group, version: def.version, kind: def.kind };
}

export function apiVersions(): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }],
  };
}

function groupEntry(catalog: ResourceCatalog, group: string): object {
  const versions = catalog.versionsOf(group).map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions, preferredVersion: versions[0] };
}

export function apiGroupList(catalog: ResourceCatalog): object {
  const groups = catalog
    .groupVersions()
    .filter((g) => g.group !== '')
    .map((g) => groupEntry(catalog, g.group));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

export function apiGroup(catalog: ResourceCatalog, group: string): object | undefined {
  if (catalog.versionsOf(group).length === 0) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(catalog, group) };
}

export function apiResourceList(catalog: ResourceCatalog, group: string, version: string): object | undefined {
  const defs = catalog.inGroupVersion(group, version);
  if (defs.length === 0) return undefined;
  const resources: object[] = [];
  for (const d of defs) {
    resources.push({
      name: d.resource,
      singularName: d.singular,
      namespaced: d.namespaced,
      kind: d.kind,
      verbs: d.verbs,
      ...(d.shortNames?.length ? { shortNames: d.shortNames } : {}),
      ...(d.categories?.length ? { categories: d.categories } : {}),
      storageVersionHash: storageVersionHash(d),
    });
    for (const sub of d.subresources) {
      const k = subresourceKind(d, sub);
      resources.push({
        name: `${d.resource}/${sub}`,
        singularName: '',
        namespaced: d.namespaced,
        ...(k.group !== d.group || sub === 'scale' ? { group: k.group, version: k.version } : {}),
        kind: k.kind,
        verbs: SUBRESOURCE_VERBS[sub] ?? ['get'],
      });
    }
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources,
  };
}

/** Aggregated discovery (apidiscovery.k8s.io/v2) for /api (core only) or /apis (every group). */
export function aggregatedDiscovery(catalog: ResourceCatalog, core: boolean, apiVersion: string): object {
  const items = catalog
    .groupVersions()
    .filter((g) => (core ? g.group === '' : g.group !== ''))
    .map((g) => ({
      metadata: { name: g.group, creationTimestamp: null },
      versions: g.versions.map((version) => ({
        version,
        resources: catalog.inGroupVersion(g.group, version).map((d) => ({
          resource: d.resource,
          responseKind: { group: d.group, version: d.version, kind: d.kind },
          scope: d.namespaced ? 'Namespaced' : 'Cluster',
          singularResource: d.singular,
          verbs: d.verbs,
          ...(d.shortNames?.length ? { shortNames: d.shortNames } : {}),
          ...(d.categories?.length ? { categories: d.categories } : {}),
          ...(d.subresources.length
            ? {
                subresources: d.subresources.map((sub) => ({
                  subresource: sub,
                  responseKind: subresourceKind(d, sub),
                  verbs: SUBRESOURCE_VERBS[sub] ?? ['get'],
                })),
              }
            : {}),
        })),
        freshness: 'Current',
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion, metadata: {}, items };
}

function storageVersionHash(d: ResourceDef): string {
  // Clients only compare it for equality; a stable digest of group/version/kind is enough.
  let h = 0;
  for (const c of `${d.group}/${d.version}/${d.kind}`) h = (h * 31 + c.charCodeAt(0)) | 0;
  return Buffer.from(String(h >>> 0))
    .toString('base64')
    .slice(0, 11);
}
