// Every namespace gets a `default` ServiceAccount, as kube-controller-manager's service
// account controller does; pods default to it.
import type { Change, Storage } from '../../storage/storage.ts';
import type { ObjectMeta } from '../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { internalContext } from '../../registry/context.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import { ChangeDrivenController } from '../change-driven.ts';

const ctx = internalContext('service-account-controller');

export class ServiceAccountController extends ChangeDrivenController {
  constructor(storage: Storage, store: ObjectStore, catalog: ResourceCatalog) {
    super('service-account-controller', storage, store, catalog);
  }

  protected observe(c: Change): void {
    if (c.key.startsWith('/core/namespaces/') && c.type !== 'DELETED')
      this.loop.add(c.key.slice('/core/namespaces/'.length));
    // Deleting the default ServiceAccount brings it back.
    if (c.type === 'DELETED' && c.key.startsWith('/core/serviceaccounts/') && c.key.endsWith('/default')) {
      this.loop.add(c.key.split('/')[3]);
    }
  }

  protected async process(ns: string): Promise<void> {
    const nsStored = this.storage.get(`/core/namespaces/${ns}`);
    if (!nsStored || (JSON.parse(nsStored.json) as { metadata: ObjectMeta }).metadata.deletionTimestamp) return;
    const def = this.catalog.lookup('', 'v1', 'serviceaccounts')!;
    if (this.store.getStored(def, ns, 'default')) return;
    try {
      await this.store.create(def, ns, { metadata: { name: 'default' } }, ctx);
    } catch (e) {
      const code = (e as { code?: number }).code;
      if (code !== 409 && code !== 403 && code !== 404) throw e;
    }
  }
}
