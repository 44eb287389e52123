// Which RBAC rules apply to a user in a namespace: every ClusterRoleBinding, plus the
// RoleBindings of that namespace, whose subjects include the user, resolved to their roles' rules
// (kube's DefaultRuleResolver, kubernetes/kubernetes:pkg/registry/rbac/validation/rule.go).
//
// Roles and bindings are kept in memory from a storage watch, so a lookup never reads storage.
// Bindings are indexed by subject (user name, group, service-account user name) so a request
// looks only at the bindings that can apply to its user.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { resourcePrefix } from '../../registry/keys.ts';
import type { Change, Storage, Watcher } from '../../storage/storage.ts';
import type { UserInfo } from '../user.ts';
import type { PolicyRule } from './rules.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface Binding {
  name: string;
  /** '' for ClusterRoleBindings. */
  namespace: string;
  subjects: Subject[];
  roleRef: RoleRef;
}

/** Called per applicable rule with kube's description of where it came from; false stops. */
export type RuleVisitor = (source: string, rule: PolicyRule) => boolean;

const SA_PREFIX = 'system:serviceaccount:';

/** The index key a subject is found under: users (and service accounts, by user name) and groups. */
function subjectKey(subject: Subject, bindingNamespace: string): string | undefined {
  switch (subject.kind) {
    case 'User':
      return `u:${subject.name}`;
    case 'Group':
      return `g:${subject.name}`;
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns ? `u:${SA_PREFIX}${ns}:${subject.name}` : undefined;
    }
    default:
      return undefined;
  }
}

function userKeys(user: UserInfo): string[] {
  return [`u:${user.username}`, ...user.groups.map((g) => `g:${g}`)];
}

/** kube's appliesToUser. */
function appliesTo(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  const key = subjectKey(subject, bindingNamespace);
  if (key === undefined) return false;
  return key.startsWith('u:') ? key.slice(2) === user.username : user.groups.includes(key.slice(2));
}

/** kube's describeSubject: service accounts as `name/namespace`. */
function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} "${s.name}/${s.namespace || bindingNamespace}"`;
  return `${s.kind} "${s.name}"`;
}

function describeBinding(b: Binding, s: Subject): string {
  return b.namespace
    ? `RoleBinding "${b.name}/${b.namespace}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${describeSubject(s, b.namespace)}`
    : `ClusterRoleBinding "${b.name}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${describeSubject(s, '')}`;
}

/** Bindings of one scope (the cluster, or one namespace), by name and by subject key. */
class BindingIndex {
  readonly byName = new Map<string, Binding>();
  private readonly bySubject = new Map<string, Set<string>>();

  put(b: Binding): void {
    this.remove(b.name);
    this.byName.set(b.name, b);
    for (const s of b.subjects) {
      const key = subjectKey(s, b.namespace);
      if (key === undefined) continue;
      let names = this.bySubject.get(key);
      if (!names) this.bySubject.set(key, (names = new Set()));
      names.add(b.name);
    }
  }

  remove(name: string): void {
    const old = this.byName.get(name);
    if (!old) return;
    this.byName.delete(name);
    for (const s of old.subjects) {
      const key = subjectKey(s, old.namespace);
      const names = key === undefined ? undefined : this.bySubject.get(key);
      names?.delete(name);
      if (key !== undefined && names?.size === 0) this.bySubject.delete(key);
    }
  }

  /** The bindings that may apply to `user`, in name order (so the allow reason is stable). */
  candidates(user: UserInfo): Binding[] {
    const names = new Set<string>();
    for (const key of userKeys(user)) for (const n of this.bySubject.get(key) ?? []) names.add(n);
    return [...names].sort().map((n) => this.byName.get(n)!);
  }

  get size(): number {
    return this.byName.size;
  }
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function toBinding(obj: JsonObject): Binding {
  const meta = (obj.metadata ?? {}) as JsonObject;
  const ref = (obj.roleRef ?? {}) as JsonObject;
  const subjects = Array.isArray(obj.subjects) ? (obj.subjects as JsonObject[]) : [];
  return {
    name: str(meta.name),
    namespace: str(meta.namespace),
    subjects: subjects.map((s) => ({
      kind: str(s.kind),
      name: str(s.name),
      namespace: str(s.namespace) || undefined,
      apiGroup: str(s.apiGroup) || undefined,
    })),
    roleRef: { apiGroup: str(ref.apiGroup), kind: str(ref.kind), name: str(ref.name) },
  };
}

export function rulesOf(obj: JsonObject): PolicyRule[] {
  return Array.isArray(obj.rules) ? (obj.rules as unknown as PolicyRule[]) : [];
}

type Kind = 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';
const KINDS: Kind[] = ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'];

export class RuleResolver {
  /** `namespace/name` → rules. */
  private readonly roles = new Map<string, PolicyRule[]>();
  private readonly clusterRoles = new Map<string, PolicyRule[]>();
  private readonly clusterRoleBindings = new BindingIndex();
  /** namespace → its RoleBindings. */
  private readonly roleBindings = new Map<string, BindingIndex>();
  private readonly watchers: Watcher[] = [];
  private readonly prefixes = new Map<string, Kind>();

  constructor(
    private readonly storage: Storage,
    catalog: ResourceCatalog,
  ) {
    for (const kind of KINDS) {
      const def = catalog.lookup(RBAC_GROUP, 'v1', kind);
      if (!def) throw new Error(`RBAC resource ${kind} is not served`);
      this.prefixes.set(resourcePrefix(def), kind);
    }
  }

  /** Loads the stored roles and bindings and follows their changes (idempotent). */
  start(): void {
    if (this.watchers.length > 0) return;
    const revision = this.storage.currentRevision();
    for (const [prefix, kind] of this.prefixes) {
      for (const o of this.storage.list(prefix)) this.apply(kind, o.json, false);
      this.watchers.push(
        this.storage.watch(prefix, revision, (c: Change) => this.apply(kind, c.json, c.type === 'DELETED')),
      );
    }
  }

  stop(): void {
    for (const w of this.watchers.splice(0)) w.stop();
  }

  /** Every rule that applies to `user` in `namespace` ('' = cluster-wide rules only), and the resolution errors. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors = this.visitRules(user, namespace, (_, rule) => {
      rules.push(rule);
      return true;
    });
    return { rules, errors };
  }

  /**
   * Offers each applicable rule to `visitor` (ClusterRoleBindings first, then the namespace's
   * RoleBindings) until it returns false; returns the errors met on the way (roles not found).
   */
  visitRules(user: UserInfo, namespace: string, visitor: RuleVisitor): string[] {
    const errors: string[] = [];
    const scopes = [this.clusterRoleBindings];
    const nsIndex = namespace ? this.roleBindings.get(namespace) : undefined;
    if (nsIndex) scopes.push(nsIndex);
    for (const index of scopes) {
      for (const binding of index.candidates(user)) {
        const subject = binding.subjects.find((s) => appliesTo(user, s, binding.namespace));
        if (!subject) continue;
        const rules = this.roleRules(binding.roleRef, binding.namespace);
        if (typeof rules === 'string') {
          errors.push(rules);
          continue;
        }
        const source = describeBinding(binding, subject);
        for (const rule of rules) if (!visitor(source, rule)) return errors;
      }
    }
    return errors;
  }

  /** The rules a roleRef points at, or kube's error text when it does not resolve. */
  roleRules(ref: RoleRef, bindingNamespace: string): PolicyRule[] | string {
    if (ref.kind === 'Role') {
      return this.roles.get(`${bindingNamespace}/${ref.name}`) ?? `role.${RBAC_GROUP} "${ref.name}" not found`;
    }
    if (ref.kind === 'ClusterRole') {
      return this.clusterRoles.get(ref.name) ?? `clusterrole.${RBAC_GROUP} "${ref.name}" not found`;
    }
    return `unsupported role reference kind: "${ref.kind}"`;
  }

  private apply(kind: Kind, json: string, deleted: boolean): void {
    const obj = JSON.parse(json) as JsonObject;
    const meta = (obj.metadata ?? {}) as JsonObject;
    const name = str(meta.name);
    const namespace = str(meta.namespace);
    switch (kind) {
      case 'roles':
        if (deleted) this.roles.delete(`${namespace}/${name}`);
        else this.roles.set(`${namespace}/${name}`, rulesOf(obj));
        return;
      case 'clusterroles':
        if (deleted) this.clusterRoles.delete(name);
        else this.clusterRoles.set(name, rulesOf(obj));
        return;
      case 'clusterrolebindings':
        if (deleted) this.clusterRoleBindings.remove(name);
        else this.clusterRoleBindings.put(toBinding(obj));
        return;
      case 'rolebindings': {
        let index = this.roleBindings.get(namespace);
        if (deleted) {
          index?.remove(name);
          if (index?.size === 0) this.roleBindings.delete(namespace);
          return;
        }
        if (!index) this.roleBindings.set(namespace, (index = new BindingIndex()));
        index.put(toBinding(obj));
      }
    }
  }
}
