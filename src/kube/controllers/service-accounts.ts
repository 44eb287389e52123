// Every namespace gets a `default` ServiceAccount, as kube-controller-manager's service
// account controller does; pods default to it.
import type { Change, Storage, Watcher } from '../storage/storage.ts';
import type { ObjectMeta } from '../types.ts';
import type { ResourceCatalog } from '../registry/catalog.ts';
import { internalContext } from '../registry/context.ts';
import type { ObjectStore } from '../registry/store.ts';
import { WorkLoop } from './work-loop.ts';

const ctx = internalContext('service-account-controller');

export class ServiceAccountController {
  private readonly loop: WorkLoop;
  private watcher?: Watcher;

  constructor(
    private readonly storage: Storage,
    private readonly store: ObjectStore,
    private readonly catalog: ResourceCatalog,
  ) {
    this.loop = new WorkLoop('service-account-controller', (ns) => this.ensure(ns));
  }

  start(): void {
    this.watcher = this.storage.watch('/', this.storage.currentRevision(), (c) => this.observe(c));
  }

  stop(): void {
    this.watcher?.stop();
    this.loop.stop();
  }

  private observe(c: Change): void {
    if (c.key.startsWith('/core/namespaces/') && c.type !== 'DELETED')
      this.loop.add(c.key.slice('/core/namespaces/'.length));
    // Deleting the default ServiceAccount brings it back.
    if (c.type === 'DELETED' && c.key.startsWith('/core/serviceaccounts/') && c.key.endsWith('/default')) {
      this.loop.add(c.key.split('/')[3]);
    }
  }

  private async ensure(ns: string): Promise<void> {
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
