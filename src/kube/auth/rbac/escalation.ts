// RBAC escalation prevention: a user may only write a Role or ClusterRole granting what they
// already hold, or bind a role whose rights they hold, unless they are in system:masters or are
// granted `escalate` (roles) / `bind` (the referenced role). kube runs these checks in the RBAC
// storage (kubernetes/kubernetes:pkg/registry/rbac/escalation_check.go, the policybased storages
// of pkg/registry/rbac/*, and pkg/registry/rbac/validation/rule.go's ConfirmNoEscalation).
import { forbidden, internalError, notFound, type StatusError } from '../../../apimachinery/errors/index.ts';
import { semanticEqual } from '../../../apimachinery/json/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { goQuote } from '../../../apimachinery/strings/index.ts';
import type { Attributes, Authorizer } from '../types.ts';
import { isPrivileged, type UserInfo } from '../user.ts';
import { aggregateErrors } from './authorizer.ts';
import { describeMissingRules, goQuotedList } from './compact.ts';
import { uncoveredRules } from './covers.ts';
import { RBAC_GROUP, rulesOf, type RoleRef, type RuleResolver } from './resolver.ts';
import type { PolicyRule } from './rules.ts';

/** What setting an aggregationRule needs: it can gather any rule into the role. */
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** One create or update of an RBAC object, as the storage sees it. */
export interface RbacWrite {
  resource: string;
  /** The object's namespace; '' for cluster-scoped kinds. */
  namespace: string;
  /** The name in the request path: '' on create, as kube's RequestInfo. */
  requestName: string;
  user: UserInfo;
  obj: JsonObject;
  old?: JsonObject;
}

export const ROLE_RESOURCES = new Set(['roles', 'clusterroles']);
export const BINDING_RESOURCES = new Set(['rolebindings', 'clusterrolebindings']);

export class EscalationCheck {
  constructor(
    private readonly authorizer: Authorizer,
    private readonly resolver: RuleResolver,
  ) {}

  /** Throws kube's 403 (or 404 for a binding's missing role) unless the write is allowed. */
  check(w: RbacWrite): void {
    // system:masters is what the API server's own loopback clients use: never restricted.
    if (isPrivileged(w.user)) return;
    if (ROLE_RESOURCES.has(w.resource)) this.checkRole(w);
    else if (BINDING_RESOURCES.has(w.resource)) this.checkBinding(w);
  }

  private checkRole(w: RbacWrite): void {
    const escalate = this.attributes(w.user, 'escalate', w.resource, w.namespace, w.requestName);
    if (this.authorizer.authorize(escalate).allowed) return;
    if (w.old && onlyGcFieldsChanged(w.obj, w.old)) return;
    const name = objectName(w.obj);
    this.confirmNoEscalation(w, name, rulesOf(w.obj));
    if (w.resource === 'clusterroles' && (hasAggregationRule(w.obj) || (w.old && hasAggregationRule(w.old)))) {
      const { rules } = this.resolver.rulesFor(w.user, w.namespace);
      if (uncoveredRules(rules, FULL_AUTHORITY).length > 0)
        throw forbiddenWrite(w.resource, name, 'must have cluster-admin privileges to use the aggregationRule');
    }
  }

  private checkBinding(w: RbacWrite): void {
    if (w.old && onlyGcFieldsChanged(w.obj, w.old)) return;
    const ref = roleRefOf(w.obj);
    if (this.bindingAuthorized(w.user, ref, w.namespace)) return;
    const rules = this.resolver.roleRules(ref, w.namespace);
    if (typeof rules === 'string') {
      if (ref.kind === 'Role') throw notFound({ group: RBAC_GROUP, resource: 'roles' }, ref.name);
      if (ref.kind === 'ClusterRole') throw notFound({ group: RBAC_GROUP, resource: 'clusterroles' }, ref.name);
      throw internalError(rules);
    }
    this.confirmNoEscalation(w, objectName(w.obj), rules);
  }

  /** kube's BindingAuthorized: `bind` on the referenced role, in the binding's namespace. */
  private bindingAuthorized(user: UserInfo, ref: RoleRef, namespace: string): boolean {
    const resource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : undefined;
    if (!resource) return false;
    const a = { ...this.attributes(user, 'bind', resource, namespace, ref.name), apiGroup: ref.apiGroup };
    return this.authorizer.authorize(a).allowed;
  }

  /** kube's ConfirmNoEscalation: the user's own rules in the namespace must cover `granted`. */
  private confirmNoEscalation(w: RbacWrite, name: string, granted: PolicyRule[]): void {
    const { rules, errors } = this.resolver.rulesFor(w.user, w.namespace);
    const missing = uncoveredRules(rules, granted);
    if (missing.length === 0) return;
    let msg =
      `user ${goQuote(w.user.username)} (groups=${goQuotedList(w.user.groups)}) is attempting to grant RBAC ` +
      `permissions not currently held:\n${describeMissingRules(missing)}`;
    if (errors.length > 0) msg += `; resolution errors: [${aggregateErrors(errors)}]`;
    throw forbiddenWrite(w.resource, name, msg);
  }

  private attributes(user: UserInfo, verb: string, resource: string, namespace: string, name: string): Attributes {
    return {
      user,
      verb,
      resourceRequest: true,
      path: '',
      apiGroup: RBAC_GROUP,
      apiVersion: '*',
      resource,
      subresource: '',
      namespace,
      name,
    };
  }
}

/** apimachinery's NewForbidden for an RBAC resource. */
function forbiddenWrite(resource: string, name: string, why: string): StatusError {
  const subject = name ? `${resource}.${RBAC_GROUP} ${goQuote(name)}` : `${resource}.${RBAC_GROUP}`;
  return forbidden(`${subject} is forbidden: ${why}`, { name: name || undefined, group: RBAC_GROUP, kind: resource });
}

function objectName(obj: JsonObject): string {
  const name = (obj.metadata as JsonObject | undefined)?.name;
  return typeof name === 'string' ? name : '';
}

function roleRefOf(obj: JsonObject): RoleRef {
  const ref = (obj.roleRef ?? {}) as JsonObject;
  const s = (v: unknown): string => (typeof v === 'string' ? v : '');
  return { apiGroup: s(ref.apiGroup), kind: s(ref.kind), name: s(ref.name) };
}

/** An aggregationRule counts only when it selects something. */
function hasAggregationRule(obj: JsonObject): boolean {
  const selectors = (obj.aggregationRule as JsonObject | undefined)?.clusterRoleSelectors;
  return Array.isArray(selectors) && selectors.length > 0;
}

/**
 * kube's IsOnlyMutatingGCFields: an update touching only what the garbage collector writes
 * (owner references, finalizers) needs no escalation check, so deletion can always finish.
 */
function onlyGcFieldsChanged(obj: JsonObject, old: JsonObject): boolean {
  const strip = (o: JsonObject): JsonObject => {
    const meta = { ...((o.metadata ?? {}) as JsonObject) };
    for (const f of ['ownerReferences', 'finalizers', 'selfLink', 'managedFields', 'resourceVersion', 'generation'])
      delete meta[f];
    return { ...o, metadata: meta };
  };
  return semanticEqual(strip(obj), strip(old));
}
