// The APIServices kube-apiserver registers for the group versions it serves itself, and their
// availability: kube-aggregator's autoregister controller fed by apiServicesToRegister (one
// `<version>.<group>` APIService per built-in group version, `v1.` for core, priorities from
// cmd/kube-apiserver/app/aggregator.go's apiVersionPriorities and
// pkg/controlplane/apiserver/aggregator.go's DefaultGenericAPIServicePriorities; created once at
// start, label automanaged=onstart) and by the crdregistration controller (one per served CRD
// version, groupPriorityMinimum 1000 and versionPriority 100, label automanaged=true, deleted
// when no CRD serves it any more); and the available-condition controller, which marks every
// APIService without `spec.service` Available=True, reason Local.
import type { Change, Storage } from '../../storage/storage.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { internalContext } from '../../registry/context.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import { ChangeDrivenController } from '../change-driven.ts';

const COMPONENT = 'kube-aggregator';
const ctx = internalContext(COMPONENT);
const PREFIX = '/apiregistration.k8s.io/apiservices/';
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';
/** The work-loop key of a registration pass (APIService names always contain a dot). */
const SYNC = 'sync';

/** [groupPriorityMinimum, versionPriority] of the built-in group versions kube registers. */
const PRIORITIES: Record<string, [number, number]> = {
  '/v1': [18000, 1],
  'apps/v1': [17800, 15],
  'events.k8s.io/v1': [17750, 15],
  'authentication.k8s.io/v1': [17700, 15],
  'authorization.k8s.io/v1': [17600, 15],
  'autoscaling/v2': [17500, 30],
  'autoscaling/v1': [17500, 15],
  'batch/v1': [17400, 15],
  'certificates.k8s.io/v1': [17300, 15],
  'networking.k8s.io/v1': [17200, 15],
  'policy/v1': [17100, 15],
  'rbac.authorization.k8s.io/v1': [17000, 15],
  'storage.k8s.io/v1': [16800, 15],
  'apiextensions.k8s.io/v1': [16700, 15],
  'admissionregistration.k8s.io/v1': [16700, 15],
  'scheduling.k8s.io/v1': [16600, 15],
  'coordination.k8s.io/v1': [16500, 15],
  'node.k8s.io/v1': [16300, 15],
  'discovery.k8s.io/v1': [16200, 15],
  'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
};
const CRD_PRIORITY: [number, number] = [1000, 100];

interface Wanted {
  group: string;
  version: string;
  priority: [number, number];
  automanaged: 'onstart' | 'true';
}

export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

export class ApiServiceRegistration extends ChangeDrivenController {
  private readonly def: ResourceDef;
  private startDone = false;
  private unsubscribe?: () => void;

  constructor(storage: Storage, store: ObjectStore, catalog: ResourceCatalog) {
    super(COMPONENT, storage, store, catalog);
    this.def = catalog.lookup('apiregistration.k8s.io', 'v1', 'apiservices')!;
  }

  override start(): void {
    super.start();
    this.unsubscribe = this.catalog.onChange(() => this.loop.add(SYNC));
    this.loop.add(SYNC);
    for (const s of this.storage.list(PREFIX)) this.loop.add(s.key.slice(PREFIX.length));
  }

  override stop(): void {
    this.unsubscribe?.();
    super.stop();
  }

  protected observe(c: Change): void {
    if (c.key.startsWith(PREFIX) && c.type !== 'DELETED') this.loop.add(c.key.slice(PREFIX.length));
  }

  protected async process(key: string): Promise<void> {
    if (key === SYNC) await this.register();
    else await this.markAvailable(key);
  }

  /** What the server serves now, as APIServices. */
  private wanted(): Map<string, Wanted> {
    const out = new Map<string, Wanted>();
    for (const { group, versions } of this.catalog.groupVersions()) {
      if (group === 'apiregistration.k8s.io') continue;
      for (const version of versions) {
        const builtin = this.catalog.inGroupVersion(group, version).some((d) => d.builtin);
        const priority = builtin ? PRIORITIES[`${group}/${version}`] : CRD_PRIORITY;
        // kube skips built-in group versions missing from its table.
        if (!priority) continue;
        out.set(apiServiceName(group, version), {
          group,
          version,
          priority,
          automanaged: builtin ? 'onstart' : 'true',
        });
      }
    }
    return out;
  }

  private async register(): Promise<void> {
    const wanted = this.wanted();
    for (const [name, w] of wanted) {
      // Built-in ones are synced once, at start: deleting one later is the user's choice.
      if (w.automanaged === 'onstart' && this.startDone) continue;
      await this.ensure(name, w);
    }
    this.startDone = true;
    for (const s of this.storage.list(PREFIX)) {
      const name = s.key.slice(PREFIX.length);
      const obj = JSON.parse(s.json) as JsonObject;
      const labels = isObject(obj.metadata) && isObject(obj.metadata.labels) ? obj.metadata.labels : {};
      if (labels[AUTOMANAGED_LABEL] === 'true' && !wanted.has(name)) await this.remove(name);
    }
  }

  private async ensure(name: string, w: Wanted): Promise<void> {
    const spec: JsonObject = {
      ...(w.group ? { group: w.group } : {}),
      version: w.version,
      groupPriorityMinimum: w.priority[0],
      versionPriority: w.priority[1],
    };
    if (!this.store.getStored(this.def, undefined, name)) {
      const body = {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name, labels: { [AUTOMANAGED_LABEL]: w.automanaged } },
        spec,
      };
      try {
        await this.store.create(this.def, undefined, body, ctx);
      } catch (e) {
        if ((e as { code?: number }).code !== 409) throw e;
      }
      return;
    }
    await this.store.updateWith(this.def, undefined, name, ctx, (fresh) => {
      const current = isObject(fresh.spec) ? fresh.spec : {};
      const same = Object.entries(spec).every(([k, v]) => current[k] === v) && !('service' in current);
      if (same) return undefined;
      fresh.spec = spec;
      return fresh;
    });
  }

  private async remove(name: string): Promise<void> {
    try {
      await this.store.delete(this.def, undefined, name, {}, ctx);
    } catch (e) {
      if ((e as { code?: number }).code !== 404) throw e;
    }
  }

  private async markAvailable(name: string): Promise<void> {
    const stored = this.store.getStored(this.def, undefined, name);
    if (!stored) return;
    const obj = JSON.parse(stored.json) as JsonObject;
    const spec = isObject(obj.spec) ? obj.spec : {};
    // Proxied APIServices are not served here; their availability is left unreported.
    if (isObject(spec.service)) return;
    const status = isObject(obj.status) ? obj.status : {};
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter(isObject);
    const available = conditions.find((c) => c.type === 'Available');
    if (available?.status === 'True' && available.reason === 'Local') return;
    await this.store.updateWith(
      this.def,
      undefined,
      name,
      ctx,
      (fresh) => {
        const st = isObject(fresh.status) ? fresh.status : {};
        const others = (Array.isArray(st.conditions) ? st.conditions : []).filter(
          (c) => !isObject(c) || c.type !== 'Available',
        );
        fresh.status = {
          ...st,
          conditions: [
            ...others,
            {
              type: 'Available',
              status: 'True',
              lastTransitionTime: formatTime(new Date()),
              reason: 'Local',
              message: 'Local APIServices are always available',
            },
          ],
        };
        return fresh;
      },
      'status',
    );
  }
}
