// CRD establishing and cleanup: an accepted CRD gets its names and `Established` condition and
// its versions are served at once; a CRD being deleted first deletes every custom resource of
// its kind (finalizer `customresourcecleanup.apiextensions.k8s.io`), then stops being served.
import type { Change, Storage } from '../../storage/storage.ts';
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { internalContext } from '../../registry/context.ts';
import { listPrefix } from '../../registry/keys.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import { customResourceDefs, type ConverterFactory } from '../../registry/custom-resources.ts';
import { ChangeDrivenController } from '../change-driven.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import { deepEqual } from '../../../apimachinery/json/index.ts';

const ctx = internalContext('apiextensions-controller');
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';
const CRD_PREFIX = '/apiextensions.k8s.io/customresourcedefinitions/';

function now(): string {
  return formatTime(new Date());
}

interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

function setCondition(conditions: Condition[], c: Condition): Condition[] {
  const old = conditions.find((x) => x.type === c.type);
  const lastTransitionTime = old && old.status === c.status ? old.lastTransitionTime : now();
  return [...conditions.filter((x) => x.type !== c.type), { ...c, lastTransitionTime }];
}

export class CrdController extends ChangeDrivenController {
  /** CRD name → the served (group, version, plural) triples, to unregister them. */
  private readonly served = new Map<string, Array<[string, string, string]>>();

  constructor(
    storage: Storage,
    store: ObjectStore,
    catalog: ResourceCatalog,
    /** Conversion webhooks for CRDs with strategy Webhook; without it they are served as strategy None. */
    private readonly converterFor?: ConverterFactory,
  ) {
    super('apiextensions-controller', storage, store, catalog);
  }

  override start(): void {
    // CRDs already in the storage (a kept store, or one handed to the control plane) are served
    // again before the server answers its first request, as kube-apiserver serves every stored CRD.
    for (const item of this.storage.list(CRD_PREFIX)) {
      const name = item.key.slice(CRD_PREFIX.length);
      this.register(name, JSON.parse(item.json) as JsonObject);
      this.loop.add(name);
    }
    super.start();
  }

  protected observe(c: Change): void {
    if (c.key.startsWith(CRD_PREFIX)) {
      const name = c.key.slice(CRD_PREFIX.length);
      // Serve new versions in the same tick the CRD is written, so discovery follows at once.
      if (c.type !== 'DELETED') this.register(name, JSON.parse(c.json) as JsonObject);
      else this.unregister(name);
      this.loop.add(name);
      return;
    }
    if (c.type === 'DELETED') {
      // A custom resource went away: a terminating CRD may now be empty.
      for (const [crdName, triples] of this.served) {
        if (triples.some(([g, , r]) => c.key.startsWith(`/${g}/${r}/`))) this.loop.add(crdName);
      }
    }
  }

  private register(name: string, crd: JsonObject): void {
    let defs;
    try {
      defs = customResourceDefs(crd, this.converterFor);
    } catch (e) {
      console.error(`peerpods apiextensions-controller: CRD ${name}: ${(e as Error).message}`);
      return;
    }
    const before = this.served.get(name) ?? [];
    const now = defs.map((d) => [d.group, d.version, d.resource] as [string, string, string]);
    for (const [g, v, r] of before) {
      if (!now.some(([g2, v2, r2]) => g2 === g && v2 === v && r2 === r)) this.catalog.remove(g, v, r);
    }
    for (const d of defs) this.catalog.add(d);
    this.served.set(name, now);
  }

  private unregister(name: string): void {
    for (const [g, v, r] of this.served.get(name) ?? []) this.catalog.remove(g, v, r);
    this.served.delete(name);
  }

  protected async process(name: string): Promise<void> {
    const crdDef = this.catalog.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    const stored = this.storage.get(`${CRD_PREFIX}${name}`);
    if (!stored) return;
    const crd = JSON.parse(stored.json) as JsonObject;
    const meta = crd.metadata as ObjectMeta;
    const spec = crd.spec as JsonObject;

    if (meta.deletionTimestamp) {
      await this.store.updateWith(
        crdDef,
        undefined,
        name,
        ctx,
        (obj) => {
          const status = (obj.status ?? {}) as JsonObject;
          const conditions = setCondition((status.conditions as Condition[] | undefined) ?? [], {
            type: 'Terminating',
            status: 'True',
            reason: 'InstanceDeletionInProgress',
            message: 'CustomResourceDefinition marked for deletion; deleting instances',
          });
          // Key order differs between what is built here and what the store decodes: compare values.
          if (deepEqual(conditions, status.conditions)) return undefined;
          obj.status = { ...status, conditions } as unknown as JsonObject;
          return obj;
        },
        'status',
      );
      const defs = this.catalog
        .all()
        .filter((d) => d.group === spec.group && d.resource === (spec.names as JsonObject).plural);
      const storageDef = defs.find((d) => !d.storageVersion || d.storageVersion === d.version) ?? defs[0];
      let remaining = 0;
      if (storageDef) {
        for (const item of this.storage.list(listPrefix(storageDef))) {
          remaining++;
          const m = (JSON.parse(item.json) as { metadata: ObjectMeta }).metadata;
          if (m.deletionTimestamp) continue;
          try {
            await this.store.delete(storageDef, m.namespace, m.name!, { propagationPolicy: 'Background' }, ctx);
          } catch (e) {
            if ((e as { code?: number }).code !== 404) throw e;
          }
        }
      }
      if (remaining > 0) {
        this.loop.addAfter(name, 300);
        return;
      }
      await this.store.updateWith(crdDef, undefined, name, ctx, (obj) => {
        const m = obj.metadata as ObjectMeta;
        if (!(m.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) return undefined;
        m.finalizers = (m.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
        if (m.finalizers.length === 0) delete m.finalizers;
        return obj;
      });
      return;
    }

    if (!(meta.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) {
      await this.store.updateWith(crdDef, undefined, name, ctx, (obj) => {
        const m = obj.metadata as ObjectMeta;
        m.finalizers = [...(m.finalizers ?? []), CRD_CLEANUP_FINALIZER];
        return obj;
      });
    }
    await this.store.updateWith(
      crdDef,
      undefined,
      name,
      ctx,
      (obj) => {
        const s = obj.spec as JsonObject;
        const status = (obj.status ?? {}) as JsonObject;
        let conditions = (status.conditions as Condition[] | undefined) ?? [];
        conditions = setCondition(conditions, {
          type: 'NamesAccepted',
          status: 'True',
          reason: 'NoConflicts',
          message: 'no conflicts found',
        });
        conditions = setCondition(conditions, {
          type: 'Established',
          status: 'True',
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
        });
        const storageVersion = ((s.versions as JsonObject[]) ?? []).find((v) => v.storage === true)?.name as
          string | undefined;
        const stored = new Set<string>((status.storedVersions as string[] | undefined) ?? []);
        if (storageVersion) stored.add(storageVersion);
        const names = s.names as JsonObject;
        const acceptedNames = {
          plural: names.plural,
          singular: names.singular ?? String(names.kind ?? '').toLowerCase(),
          ...(names.shortNames ? { shortNames: names.shortNames } : {}),
          kind: names.kind,
          listKind: names.listKind ?? `${String(names.kind)}List`,
          ...(names.categories ? { categories: names.categories } : {}),
        };
        const next = { ...status, conditions, acceptedNames, storedVersions: [...stored] };
        if (deepEqual(next, status)) return undefined;
        obj.status = next as unknown as JsonObject;
        return obj;
      },
      'status',
    );
  }
}
