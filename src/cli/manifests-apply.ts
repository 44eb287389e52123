// Applying generated manifests to a cluster through the runtime client: server-side apply with
// field manager `peerpods` (re-running is a no-op, and fields other managers own are left alone),
// and deletes in reverse dependency order.
import {
  ClusterRoleBindings,
  ClusterRoles,
  ConfigMaps,
  CustomResourceDefinitions,
  Deployments,
  Namespaces,
  RoleBindings,
  Roles,
  Secrets,
  ServiceAccounts,
  Services,
  isNotFound,
  serverSideApply,
} from '../runtime/index.ts';
import type { Condition, KubeClient, KubeObject, ResourceType } from '../runtime/index.ts';
import { PeerPods } from '../peerpod/index.ts';

export const FIELD_MANAGER = 'peerpods';

const TYPES: ResourceType[] = [
  Namespaces,
  CustomResourceDefinitions,
  ServiceAccounts,
  ClusterRoles,
  ClusterRoleBindings,
  Roles,
  RoleBindings,
  ConfigMaps,
  Secrets,
  Services,
  Deployments,
  PeerPods,
];

function typeOf(obj: KubeObject): ResourceType {
  const t = TYPES.find(
    (r) => r.kind === obj.kind && (r.group ? `${r.group}/${r.version}` : r.version) === obj.apiVersion,
  );
  if (!t) throw new Error(`no resource type known for ${obj.apiVersion} ${obj.kind}`);
  return t;
}

/** Apply order: what others depend on first (namespaces, CRDs, RBAC), workloads last. */
function rank(obj: KubeObject): number {
  const i = TYPES.indexOf(typeOf(obj));
  return i < 0 ? TYPES.length : i;
}

function describe(obj: KubeObject): string {
  const ns = obj.metadata.namespace ? `${obj.metadata.namespace}/` : '';
  return `${obj.kind} ${ns}${obj.metadata.name}`;
}

export async function applyAll(
  client: KubeClient,
  objects: KubeObject[],
  log: (line: string) => void = () => {},
): Promise<void> {
  const sorted = [...objects].sort((a, b) => rank(a) - rank(b));
  for (const obj of sorted) {
    await serverSideApply(client, typeOf(obj), obj, { fieldManager: FIELD_MANAGER, force: true });
    log(`applied ${describe(obj)}`);
    if (obj.kind === 'CustomResourceDefinition') await waitEstablished(client, obj.metadata.name as string);
  }
}

export async function deleteAll(
  client: KubeClient,
  objects: KubeObject[],
  log: (line: string) => void = () => {},
): Promise<void> {
  const sorted = [...objects].sort((a, b) => rank(b) - rank(a));
  for (const obj of sorted) {
    try {
      await client.delete(typeOf(obj), obj.metadata.name as string, obj.metadata.namespace, {
        propagationPolicy: 'Background',
      });
      log(`deleted ${describe(obj)}`);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      log(`${describe(obj)} not found`);
    }
  }
}

/** Waits until the CRD is Established, so objects of its kind can be written right after. */
export async function waitEstablished(client: KubeClient, name: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const crd = await client.get(CustomResourceDefinitions, name);
    const conditions = (crd.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
