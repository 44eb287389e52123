// kube-controller-manager's ClusterRole aggregation controller
// (kubernetes/kubernetes:pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go):
// a ClusterRole with an aggregationRule gets, as its rules, the rules of every other ClusterRole
// its selectors match (by name, duplicates once), written by server-side apply with force, so
// rules written by hand are replaced. Any ClusterRole change re-checks every aggregated role.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { semanticEqualEmptyAsAbsent } from '../../../apimachinery/json/index.ts';
import { labelSelectorFromObject, type LabelSelector } from '../../../apimachinery/selectors/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { internalContext } from '../../registry/context.ts';
import { resourcePrefix } from '../../registry/keys.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import type { Change, Storage } from '../../storage/storage.ts';
import { ChangeDrivenController } from '../change-driven.ts';

const MANAGER = 'clusterrole-aggregation-controller';
const ctx = internalContext(MANAGER);

interface ClusterRole {
  metadata: { name: string; labels?: Record<string, string> };
  aggregationRule?: { clusterRoleSelectors?: LabelSelector[] | null } | null;
  rules?: JsonObject[] | null;
}

export class ClusterRoleAggregationController extends ChangeDrivenController {
  private readonly def: ResourceDef;
  private readonly prefix: string;

  constructor(storage: Storage, store: ObjectStore, catalog: ResourceCatalog) {
    super(MANAGER, storage, store, catalog);
    this.def = catalog.lookup('rbac.authorization.k8s.io', 'v1', 'clusterroles')!;
    this.prefix = resourcePrefix(this.def);
  }

  override start(): void {
    super.start();
    this.enqueueAggregated();
  }

  protected observe(c: Change): void {
    if (c.key.startsWith(this.prefix)) this.enqueueAggregated();
  }

  private clusterRoles(): ClusterRole[] {
    return this.storage.list(this.prefix).map((o) => JSON.parse(o.json) as ClusterRole);
  }

  private enqueueAggregated(): void {
    for (const role of this.clusterRoles()) if (role.aggregationRule) this.loop.add(role.metadata.name);
  }

  protected async process(name: string): Promise<void> {
    const stored = this.storage.get(`${this.prefix}${name}`);
    if (!stored) return;
    const role = JSON.parse(stored.json) as ClusterRole;
    if (!role.aggregationRule) return;
    const all = this.clusterRoles().sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
    const rules: JsonObject[] = [];
    for (const selector of role.aggregationRule.clusterRoleSelectors ?? []) {
      const matcher = labelSelectorFromObject(selector);
      for (const other of all) {
        if (other.metadata.name === name || !matcher.matches(other.metadata.labels)) continue;
        for (const r of other.rules ?? []) {
          if (!rules.some((have) => semanticEqualEmptyAsAbsent(have, r))) rules.push(r);
        }
      }
    }
    if (semanticEqualEmptyAsAbsent(rules, role.rules ?? [])) return;
    const apply = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules };
    try {
      await this.store.patch(this.def, undefined, name, 'apply', apply, ctx, { force: true });
    } catch (e) {
      // Deleted meanwhile: nothing to aggregate into. Conflicts are retried on the next change.
      const code = (e as { code?: number }).code;
      if (code === 404) return;
      if (code === 409) {
        this.loop.addAfter(name, 100);
        return;
      }
      throw e;
    }
  }
}
