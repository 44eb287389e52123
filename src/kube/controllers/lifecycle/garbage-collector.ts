// The garbage collector: dependents whose owners are all gone are deleted (Background), an
// owner deleted in the foreground waits until its blocking dependents are gone, and an owner
// deleted with Orphan is removed from its dependents' ownerReferences first.
import type { Change, Storage } from '../../storage/storage.ts';
import type { JsonObject, ObjectMeta, OwnerReference } from '../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { internalContext } from '../../registry/context.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN, type ObjectStore } from '../../registry/store/index.ts';
import { splitKey } from '../../registry/keys.ts';
import { ChangeDrivenController } from '../change-driven.ts';

const ctx = internalContext('garbage-collector');

interface Parsed {
  meta: ObjectMeta;
}

function parse(json: string | undefined): Parsed | undefined {
  if (json === undefined) return undefined;
  const obj = JSON.parse(json) as JsonObject;
  return { meta: (obj.metadata ?? {}) as ObjectMeta };
}

export class GarbageCollector extends ChangeDrivenController {
  /** owner uid → keys of objects that name it in ownerReferences. */
  private readonly dependents = new Map<string, Set<string>>();
  /** uid → key, for objects that are owners of something (resolved lazily). */

  constructor(storage: Storage, store: ObjectStore, catalog: ResourceCatalog) {
    super('garbage-collector', storage, store, catalog);
  }

  protected observe(c: Change): void {
    // Every write in the cluster passes here: parse only what can matter to the collector.
    const deleted = c.type === 'DELETED';
    const prevHasRefs = c.prevJson !== undefined && c.prevJson.includes('"ownerReferences"');
    const nextMayMatter = !deleted && (c.json.includes('"ownerReferences"') || c.json.includes('"deletionTimestamp"'));
    const prev = prevHasRefs || deleted ? parse(c.prevJson) : undefined;
    const next = nextMayMatter ? parse(c.json) : undefined;
    const prevRefs = prev?.meta.ownerReferences ?? [];
    const nextRefs = next?.meta.ownerReferences ?? [];
    for (const ref of prevRefs) this.dependents.get(ref.uid)?.delete(c.key);
    for (const ref of nextRefs) {
      let set = this.dependents.get(ref.uid);
      if (!set) this.dependents.set(ref.uid, (set = new Set()));
      set.add(c.key);
    }
    for (const ref of prevRefs) {
      if (this.dependents.get(ref.uid)?.size === 0) this.dependents.delete(ref.uid);
    }
    // Owners are checked when a dependent appears or its ownerReferences change.
    if (nextRefs.length > 0 && (c.type === 'ADDED' || JSON.stringify(prevRefs) !== JSON.stringify(nextRefs))) {
      this.loop.add(`dependent:${c.key}`);
    }
    if (deleted) {
      const uid = prev?.meta.uid;
      for (const dep of (uid && this.dependents.get(uid)) || []) this.loop.add(`dependent:${dep}`);
    } else if (next?.meta.deletionTimestamp) {
      const f = next.meta.finalizers ?? [];
      if (f.includes(FINALIZER_FOREGROUND) || f.includes(FINALIZER_ORPHAN)) this.loop.add(`owner:${c.key}`);
    }
  }

  private defForKey(key: string): ResourceDef | undefined {
    const [, group, resource] = key.split('/');
    const g = group === 'core' ? '' : group;
    return this.catalog
      .all()
      .find(
        (d) =>
          d.group === g &&
          d.resource === resource &&
          !d.storageOf &&
          (!d.storageVersion || d.storageVersion === d.version),
      );
  }

  protected async process(work: string): Promise<void> {
    const i = work.indexOf(':');
    const kind = work.slice(0, i);
    const key = work.slice(i + 1);
    if (kind === 'dependent') await this.processDependent(key);
    else await this.processOwner(key);
  }

  /** Is the owner named by `ref` present (same uid) from the point of view of `dependentNs`? */
  private ownerState(
    ref: OwnerReference,
    dependentNs: string | undefined,
  ): 'present' | 'absent' | 'unknown' | 'deleting-foreground' {
    const def = this.catalog.byKind(ref.apiVersion, ref.kind);
    if (!def) return 'unknown';
    // A namespaced owner of a cluster-scoped dependent cannot exist.
    if (def.namespaced && !dependentNs) return 'absent';
    const stored = this.store.getStored(def, def.namespaced ? dependentNs : undefined, ref.name);
    if (!stored) return 'absent';
    const p = parse(stored.json)!;
    if (p.meta.uid !== ref.uid) return 'absent';
    if (p.meta.deletionTimestamp && (p.meta.finalizers ?? []).includes(FINALIZER_FOREGROUND))
      return 'deleting-foreground';
    return 'present';
  }

  private async processDependent(key: string): Promise<void> {
    const stored = this.storage.get(key);
    const def = this.defForKey(key);
    if (!stored || !def) return;
    const p = parse(stored.json)!;
    const refs = p.meta.ownerReferences ?? [];
    if (refs.length === 0) return;
    const { namespace, name } = splitKey(def, key);
    const states = refs.map((r) => this.ownerState(r, namespace));
    if (states.includes('unknown')) return;
    const live = refs.filter((_, i) => states[i] === 'present');
    const foreground = states.includes('deleting-foreground');
    if (live.length === 0 && !foreground) {
      if (p.meta.deletionTimestamp) return;
      await this.deleteQuietly(def, namespace, name, 'Background');
      return;
    }
    if (foreground && live.length === 0) {
      if (p.meta.deletionTimestamp) return;
      await this.deleteQuietly(def, namespace, name, 'Foreground');
      return;
    }
    const dangling = refs.filter((_, i) => states[i] === 'absent').map((r) => r.uid);
    if (dangling.length > 0) {
      await this.store.updateWith(def, namespace, name, ctx, (obj) => {
        const m = obj.metadata as ObjectMeta;
        m.ownerReferences = (m.ownerReferences ?? []).filter((r) => !dangling.includes(r.uid));
        if (m.ownerReferences.length === 0) delete m.ownerReferences;
        return obj;
      });
    }
  }

  private async processOwner(key: string): Promise<void> {
    const stored = this.storage.get(key);
    const def = this.defForKey(key);
    if (!stored || !def) return;
    const p = parse(stored.json)!;
    if (!p.meta.deletionTimestamp) return;
    const { namespace, name } = splitKey(def, key);
    const uid = p.meta.uid!;
    const finalizers = p.meta.finalizers ?? [];
    const deps = [...(this.dependents.get(uid) ?? [])];

    if (finalizers.includes(FINALIZER_ORPHAN)) {
      for (const depKey of deps) {
        const depDef = this.defForKey(depKey);
        if (!depDef) continue;
        const d = splitKey(depDef, depKey);
        await this.store.updateWith(depDef, d.namespace, d.name, ctx, (obj) => {
          const m = obj.metadata as ObjectMeta;
          m.ownerReferences = (m.ownerReferences ?? []).filter((r) => r.uid !== uid);
          if (m.ownerReferences.length === 0) delete m.ownerReferences;
          return obj;
        });
      }
      await this.removeFinalizer(def, namespace, name, FINALIZER_ORPHAN);
      return;
    }

    if (finalizers.includes(FINALIZER_FOREGROUND)) {
      let blocking = 0;
      for (const depKey of deps) {
        const depDef = this.defForKey(depKey);
        const depStored = this.storage.get(depKey);
        if (!depDef || !depStored) continue;
        const dm = parse(depStored.json)!.meta;
        const ref = (dm.ownerReferences ?? []).find((r) => r.uid === uid);
        if (!ref) continue;
        if (ref.blockOwnerDeletion) blocking++;
        if (!dm.deletionTimestamp) {
          const d = splitKey(depDef, depKey);
          await this.deleteQuietly(depDef, d.namespace, d.name, 'Foreground');
        }
      }
      if (blocking === 0) await this.removeFinalizer(def, namespace, name, FINALIZER_FOREGROUND);
      else this.loop.addAfter(`owner:${key}`, 200);
    }
  }

  private async removeFinalizer(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    finalizer: string,
  ): Promise<void> {
    await this.store.updateWith(def, namespace, name, ctx, (obj) => {
      const m = obj.metadata as ObjectMeta;
      if (!(m.finalizers ?? []).includes(finalizer)) return undefined;
      m.finalizers = (m.finalizers ?? []).filter((f) => f !== finalizer);
      if (m.finalizers.length === 0) delete m.finalizers;
      return obj;
    });
  }

  private async deleteQuietly(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    propagationPolicy: 'Background' | 'Foreground',
  ): Promise<void> {
    try {
      await this.store.delete(def, namespace, name, { propagationPolicy }, ctx);
    } catch (e) {
      if ((e as { code?: number }).code !== 404) throw e;
    }
  }
}
