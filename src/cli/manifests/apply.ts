// Applying generated manifests to a cluster through the runtime client: server-side apply with
// field manager `peerpods` (re-running is a no-op, and fields other managers own are left alone),
// and deletes in reverse dependency order.
import {
  ClusterRoleBindings,
  ClusterRoles,
  ConfigMaps,
  CustomResourceDefinitions,
  Deployments,
  MutatingWebhookConfigurations,
  Namespaces,
  RoleBindings,
  Roles,
  Secrets,
  ServiceAccounts,
  Services,
  ValidatingWebhookConfigurations,
  isNotFound,
  serverSideApply,
  waitEstablished,
} from '../../runtime/index.ts';
import type { KubeClient, KubeObject, ResourceType } from '../../runtime/index.ts';
import { PeerPods } from '../../peerpod/index.ts';

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
  // A scaffolded project's webhooks (deploy --kustomize), after the Deployment that serves them.
  MutatingWebhookConfigurations,
  ValidatingWebhookConfigurations,
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
  // CRDs are established together (they sort next to each other), before the first object after them.
  const establishing: string[] = [];
  const established = () =>
    Promise.all(establishing.splice(0).map((name) => waitEstablished(client, name))).then(() => undefined);
  for (const obj of sorted) {
    const crd = obj.kind === 'CustomResourceDefinition';
    if (!crd) await established();
    await serverSideApply(client, typeOf(obj), obj, { fieldManager: FIELD_MANAGER, force: true });
    log(`applied ${describe(obj)}`);
    if (crd) establishing.push(obj.metadata.name as string);
  }
  await established();
}

export interface DeleteOptions {
  /** Delete a live object only when this holds (it is read first); others are kept and reported. */
  onlyIf?: (live: KubeObject) => boolean;
}

export async function deleteAll(
  client: KubeClient,
  objects: KubeObject[],
  log: (line: string) => void = () => {},
  opts: DeleteOptions = {},
): Promise<void> {
  const sorted = [...objects].sort((a, b) => rank(b) - rank(a));
  for (const obj of sorted) {
    const type = typeOf(obj);
    const name = obj.metadata.name as string;
    try {
      if (opts.onlyIf) {
        const live = await client.get<KubeObject>(type, name, obj.metadata.namespace);
        if (!opts.onlyIf(live)) {
          log(`${describe(obj)} kept: not created by deploy`);
          continue;
        }
      }
      await client.delete(type, name, obj.metadata.namespace, { propagationPolicy: 'Background' });
      log(`deleted ${describe(obj)}`);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      log(`${describe(obj)} not found`);
    }
  }
}
