// Two cluster role bindings per cluster, granting the node pods' service account `<id>/<id>` the
// general ClusterRole (`<id>`) and the pod-security-policy one (`<id>-psp`).
// A binding's roleRef is immutable, so a changed role is a delete and a create, decided up front
// from the diff instead of after the API rejects the update.
// Unlike upstream (which never deleted them: they leaked, having no owner), teardown deletes both,
// but only once no pod is left in the cluster namespace: a draining pod's shutdown-deferrer still
// calls the API with this identity (upstream #1076).
import { ClusterRoleBindings, ignoreAlreadyExists, ignoreNotFound, isNotFound } from '../../../runtime/index.ts';
import type { HandlerContext, KubeClient, KubeObject, ResourceHandler } from '../../../runtime/index.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { KvmDeps } from '../../deps.ts';
import type { ResolvedKvmOptions } from '../../options.ts';
import { clusterId, clusterNamespace, managedLabels } from '../../key.ts';
import { isSubset } from './meta-compare.ts';
import { podsInNamespace } from './namespace.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

export interface ClusterRoleBinding extends KubeObject {
  roleRef: RoleRef;
  subjects?: Subject[];
}

export function desiredClusterRoleBindings(
  c: KVMConfig,
  options: Pick<ResolvedKvmOptions, 'clusterRoleGeneral' | 'clusterRolePsp'>,
): ClusterRoleBinding[] {
  const id = clusterId(c);
  const binding = (name: string, role: string): ClusterRoleBinding => ({
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: managedLabels(c) },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: id, namespace: clusterNamespace(c) }],
  });
  return [binding(id, options.clusterRoleGeneral), binding(`${id}-psp`, options.clusterRolePsp)];
}

export function roleRefEqual(a: RoleRef, b: RoleRef): boolean {
  return a.apiGroup === b.apiGroup && a.kind === b.kind && a.name === b.name;
}

/** The API server defaults a subject's apiGroup ("" for service accounts, rbac for users/groups). */
function subjectKey(s: Subject): string {
  const group = s.apiGroup ?? (s.kind === 'ServiceAccount' ? '' : RBAC_GROUP);
  return JSON.stringify([s.kind, group, s.name, s.namespace ?? '']);
}

export function subjectsEqual(a: Subject[] = [], b: Subject[] = []): boolean {
  return a.length === b.length && a.every((s, i) => subjectKey(s) === subjectKey(b[i]));
}

export interface BindingPlan {
  create: ClusterRoleBinding[];
  /** Existing bindings with the desired subjects and labels merged in (they keep their resourceVersion). */
  update: ClusterRoleBinding[];
  /** Bindings whose roleRef changed: deleted (the current uid as precondition), then created. */
  replace: { current: ClusterRoleBinding; desired: ClusterRoleBinding }[];
}

export function planClusterRoleBindings(current: ClusterRoleBinding[], desired: ClusterRoleBinding[]): BindingPlan {
  const byName = new Map(current.map((b) => [b.metadata.name, b]));
  const plan: BindingPlan = { create: [], update: [], replace: [] };
  for (const d of desired) {
    const cur = byName.get(d.metadata.name);
    if (!cur) plan.create.push(d);
    else if (!roleRefEqual(cur.roleRef, d.roleRef)) plan.replace.push({ current: cur, desired: d });
    else if (!subjectsEqual(cur.subjects, d.subjects) || !isSubset(cur.metadata.labels, d.metadata.labels)) {
      plan.update.push({
        ...cur,
        metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, ...d.metadata.labels } },
        subjects: d.subjects,
      });
    }
  }
  return plan;
}

async function currentBindings(
  client: KubeClient,
  names: string[],
  signal: AbortSignal,
): Promise<ClusterRoleBinding[]> {
  const got = await Promise.all(
    names.map((n) => ignoreNotFound(client.get<ClusterRoleBinding>(ClusterRoleBindings, n, undefined, { signal }))),
  );
  return got.filter((b): b is ClusterRoleBinding => b !== undefined);
}

export function clusterRoleBindingHandler(deps: KvmDeps): ResourceHandler<KVMConfig> {
  return {
    name: 'clusterrolebinding',
    async ensureCreated(c: KVMConfig, ctx: HandlerContext): Promise<void> {
      const desired = desiredClusterRoleBindings(c, deps.options);
      const current = await currentBindings(
        deps.client,
        desired.map((d) => d.metadata.name as string),
        ctx.signal,
      );
      const plan = planClusterRoleBindings(current, desired);
      for (const b of plan.create) {
        await ignoreAlreadyExists(deps.client.create(ClusterRoleBindings, b, { signal: ctx.signal }));
        ctx.log.info({ clusterRoleBinding: b.metadata.name }, 'cluster role binding created');
      }
      for (const b of plan.update) {
        await deps.client.update(ClusterRoleBindings, b, { signal: ctx.signal });
        ctx.log.info({ clusterRoleBinding: b.metadata.name }, 'cluster role binding updated');
      }
      for (const { current: cur, desired: d } of plan.replace) {
        const name = cur.metadata.name as string;
        try {
          const uid = cur.metadata.uid;
          await deps.client.delete(ClusterRoleBindings, name, undefined, {
            signal: ctx.signal,
            ...(uid ? { preconditions: { uid } } : {}),
          });
        } catch (e) {
          if (!isNotFound(e)) throw e;
        }
        await ignoreAlreadyExists(deps.client.create(ClusterRoleBindings, d, { signal: ctx.signal }));
        ctx.log.info(
          { clusterRoleBinding: name, role: d.roleRef.name },
          'cluster role binding recreated (roleRef changed)',
        );
      }
    },
    async ensureDeleted(c: KVMConfig, ctx: HandlerContext): Promise<void> {
      const pods = await podsInNamespace(deps.client, clusterNamespace(c), ctx.signal);
      if (pods > 0) {
        const reason = `${pods} pod(s) left in namespace ${clusterNamespace(c)} may still drain with these bindings`;
        ctx.cancelHandler(reason);
        ctx.keepFinalizer(reason);
        return;
      }
      for (const b of desiredClusterRoleBindings(c, deps.options)) {
        const gone = await ignoreNotFound(
          deps.client.delete(ClusterRoleBindings, b.metadata.name as string, undefined, { signal: ctx.signal }),
        );
        if (gone) ctx.log.info({ clusterRoleBinding: b.metadata.name }, 'cluster role binding deleted');
      }
    },
  };
}
