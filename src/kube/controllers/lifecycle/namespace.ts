// Namespace lifecycle: a namespace being deleted has its contents deleted, and once nothing is
// left its `kubernetes` finalizer is removed through /finalize, which lets it go.
import type { Change, Storage } from '../../storage/storage.ts';
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { internalContext } from '../../registry/context.ts';
import { listPrefix } from '../../registry/keys.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import { ChangeDrivenController } from '../change-driven.ts';

const ctx = internalContext('namespace-controller');

export class NamespaceLifecycle extends ChangeDrivenController {
  constructor(storage: Storage, store: ObjectStore, catalog: ResourceCatalog) {
    super('namespace-controller', storage, store, catalog);
  }

  protected observe(c: Change): void {
    if (c.key.startsWith('/core/namespaces/')) {
      if (c.type !== 'DELETED' && (JSON.parse(c.json) as { metadata: ObjectMeta }).metadata.deletionTimestamp) {
        this.loop.add(c.key.slice('/core/namespaces/'.length));
      }
      return;
    }
    // Something left a namespace: re-check it if it is terminating.
    if (c.type === 'DELETED') {
      const parts = c.key.split('/');
      if (parts.length === 5) {
        const ns = parts[3];
        const stored = this.storage.get(`/core/namespaces/${ns}`);
        if (stored && (JSON.parse(stored.json) as { metadata: ObjectMeta }).metadata.deletionTimestamp)
          this.loop.add(ns);
      }
    }
  }

  private namespacedDefs() {
    const seen = new Set<string>();
    // A CRD's storage version first: its objects are deleted in the form they are stored in, with
    // no conversion webhook call (another served version is taken only when that one is not served).
    const storageFirst = (d: ResourceDef) => (d.storageVersion && d.storageVersion !== d.version ? 1 : 0);
    const defs = this.catalog.all().sort((a, b) => storageFirst(a) - storageFirst(b));
    return defs.filter((d) => {
      if (!d.namespaced || d.storageOf) return false;
      const p = listPrefix(d);
      if (seen.has(p)) return false;
      seen.add(p);
      return true;
    });
  }

  protected async process(ns: string): Promise<void> {
    const nsDef = this.catalog.lookup('', 'v1', 'namespaces')!;
    const stored = this.storage.get(`/core/namespaces/${ns}`);
    if (!stored) return;
    const nsObj = JSON.parse(stored.json) as JsonObject;
    if (!(nsObj.metadata as ObjectMeta).deletionTimestamp) return;

    let remaining = 0;
    for (const def of this.namespacedDefs()) {
      for (const item of this.storage.list(listPrefix(def, ns))) {
        remaining++;
        const m = (JSON.parse(item.json) as { metadata: ObjectMeta }).metadata;
        if (m.deletionTimestamp) continue;
        try {
          await this.store.delete(def, ns, m.name!, { propagationPolicy: 'Background' }, ctx);
        } catch (e) {
          if ((e as { code?: number }).code !== 404) throw e;
        }
      }
    }
    if (remaining > 0) {
      // Objects with finalizers or graceful pods: look again soon (deletions also wake us).
      this.loop.addAfter(ns, 500);
      return;
    }
    await this.store.updateWith(
      nsDef,
      undefined,
      ns,
      ctx,
      (obj) => {
        const spec = (obj.spec ?? {}) as { finalizers?: string[] };
        if (!(spec.finalizers ?? []).includes('kubernetes')) return undefined;
        obj.spec = { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== 'kubernetes') };
        return obj;
      },
      'finalize',
    );
  }
}
