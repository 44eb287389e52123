// The root CA certificate publisher (pkg/controller/certificates/rootcacertpublisher/publisher.go):
// every namespace holds a ConfigMap `kube-root-ca.crt` whose `ca.crt` is the CA that signs the API
// server's certificate, so pods can verify it. A deleted one is recreated and an edited one put
// back: its data replaced, a description annotation restored when missing (kube only checks
// that one is there); other metadata is left alone.
import type { Change, Storage } from '../../storage/storage.ts';
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import { semanticEqual } from '../../../apimachinery/json/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { internalContext } from '../../registry/context.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import { ChangeDrivenController } from '../change-driven.ts';
import { errorCode, isNamespaceTerminating, parseObject } from '../workloads/common.ts';

export const ROOT_CA_CONFIG_MAP = 'kube-root-ca.crt';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';
const NAMESPACES = '/core/namespaces/';
const CONFIG_MAPS = '/core/configmaps/';
const ctx = internalContext('root-ca-cert-publisher');

export class RootCaPublisher extends ChangeDrivenController {
  constructor(
    storage: Storage,
    store: ObjectStore,
    catalog: ResourceCatalog,
    private readonly caPem: string,
  ) {
    super('root-ca-cert-publisher', storage, store, catalog);
  }

  override start(): void {
    super.start();
    for (const s of this.storage.list(NAMESPACES)) this.loop.add(s.key.slice(NAMESPACES.length));
  }

  protected observe(c: Change): void {
    if (c.key.startsWith(NAMESPACES) && c.type !== 'DELETED') this.loop.add(c.key.slice(NAMESPACES.length));
    if (c.key.startsWith(CONFIG_MAPS) && c.key.endsWith(`/${ROOT_CA_CONFIG_MAP}`) && c.type !== 'ADDED')
      this.loop.add(c.key.split('/')[3]);
  }

  protected async process(ns: string): Promise<void> {
    const namespace = parseObject(this.storage.get(`${NAMESPACES}${ns}`)?.json);
    if (!namespace || namespace.metadata.deletionTimestamp) return;
    const def = this.catalog.lookup('', 'v1', 'configmaps')!;
    const data = { 'ca.crt': this.caPem };
    const current = parseObject(this.storage.get(`${CONFIG_MAPS}${ns}/${ROOT_CA_CONFIG_MAP}`)?.json);
    if (!current) {
      try {
        await this.store.create(
          def,
          ns,
          { metadata: { name: ROOT_CA_CONFIG_MAP, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } }, data },
          ctx,
        );
      } catch (e) {
        // Terminating namespace: nothing to publish. Created meanwhile: that change queued us again.
        if (isNamespaceTerminating(e) || errorCode(e) === 409 || errorCode(e) === 404) return;
        throw e;
      }
      return;
    }
    if (semanticEqual(current.data, data) && current.metadata.annotations?.[DESCRIPTION_ANNOTATION]) return;
    const rv = current.metadata.resourceVersion;
    await this.store.updateWith(def, ns, ROOT_CA_CONFIG_MAP, ctx, (fresh: JsonObject) => {
      const m = fresh.metadata as ObjectMeta;
      // Written since we read it: that write queued us again.
      if (m.resourceVersion !== rv) return undefined;
      m.annotations = { ...(m.annotations ?? {}), [DESCRIPTION_ANNOTATION]: DESCRIPTION };
      fresh.data = data;
      return fresh;
    });
  }
}
