// The EndpointSlice controller (pkg/controller/endpointslice/endpointslice_controller.go with
// staging/src/k8s.io/endpointslice/reconciler.go): every Service with a selector gets
// discovery.k8s.io/v1 EndpointSlices `<service>-<random>` owned by it, one set per port set, at
// most 100 endpoints each. Unlike Endpoints, terminating pods stay, with `terminating: true`
// (`ready` only with publishNotReadyAddresses). Endpoints keep their slice while they exist, new
// ones fill slices with room before a new slice is made, and a Service with no endpoint gets one
// empty placeholder slice. A deleted Service's slices go with it through the garbage collector.
import { isObject, semanticEqual } from '../../../apimachinery/json/index.ts';
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { internalContext } from '../../registry/context.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import type { Change, Storage } from '../../storage/storage.ts';
import { ChangeDrivenController } from '../change-driven.ts';
import {
  deleteExactly,
  isNamespaceTerminating,
  labelsOf,
  ownerRefTo,
  parseObject,
  type WorkloadObject,
} from '../workloads/common.ts';
import { desiredEndpoints, portsKeyOf, type DesiredEndpoint } from './slice-endpoints.ts';
import { SERVICE_PREFIX, TRIGGER_TIME_ANNOTATION, managedSelector, selectedPods } from './service-pods.ts';
import { sliceLabels, SERVICE_NAME_LABEL, MANAGED_BY_LABEL, CONTROLLER_NAME } from './slice-labels.ts';
import { ServiceRouting } from './service-routing.ts';
import { TriggerTimeTracker } from './trigger-time.ts';

const SLICE_PREFIX = '/discovery.k8s.io/endpointslices/';
/** v1.LabelTopologyZone: copied from the pod's node into the endpoint. */
const ZONE_LABEL = 'topology.kubernetes.io/zone';
/** maxEndpointsPerSlice, kube-controller-manager's --max-endpoints-per-slice default. */
export const MAX_ENDPOINTS_PER_SLICE = 100;
const COMPONENT = 'endpointslice-controller';
const ctx = internalContext(COMPONENT);

interface Slice {
  name: string;
  uid: string;
  resourceVersion: string;
  addressType: string;
  portsKey: string;
  endpoints: JsonObject[];
  labels: Record<string, string>;
  ownerUid?: string;
}

/** A slice's endpoints after this sync, and whether they changed. */
interface Plan {
  slice: Slice;
  endpoints: JsonObject[];
  changed: boolean;
}

const endpointKey = (ep: JsonObject): string =>
  JSON.stringify([(ep.targetRef as JsonObject | undefined)?.uid ?? '', ep.addresses]);

export class EndpointSliceController extends ChangeDrivenController {
  private readonly slicesDef: ResourceDef;
  private readonly triggerTimes = new TriggerTimeTracker();
  // A deleted Service's slices go with it through the garbage collector: nothing to sync.
  private readonly routing = new ServiceRouting(this.storage, this.loop, this.triggerTimes, false);

  constructor(storage: Storage, store: ObjectStore, catalog: ResourceCatalog) {
    super(COMPONENT, storage, store, catalog);
    this.slicesDef = catalog.lookup('discovery.k8s.io', 'v1', 'endpointslices')!;
  }

  override start(): void {
    super.start();
    this.routing.enqueueAll();
  }

  protected observe(c: Change): void {
    if (this.routing.observe(c)) return;
    if (c.key.startsWith(SLICE_PREFIX)) {
      // Our slices changed or deleted by someone else: put them right (our own writes sync to a no-op).
      const slice = parseObject(c.json);
      const labels = labelsOf(slice);
      const service = labels[SERVICE_NAME_LABEL];
      if (slice && service && labels[MANAGED_BY_LABEL] === CONTROLLER_NAME)
        this.loop.add(`${slice.metadata.namespace}/${service}`);
    }
  }

  protected async process(key: string): Promise<void> {
    const svc = parseObject(this.storage.get(`${SERVICE_PREFIX}${key}`)?.json);
    // Gone or being deleted: the garbage collector deletes the slices it owns.
    if (!svc || svc.metadata.deletionTimestamp) return;
    const selector = managedSelector(svc);
    if (!selector) return;
    const ns = svc.metadata.namespace!;
    const pods = selectedPods(this.storage, ns, selector);
    const triggerTime = this.triggerTimes.compute(key, svc, pods);
    const { addressType, endpoints } = desiredEndpoints(svc, pods, (node) => this.zoneOf(node));
    const existing = this.slicesOf(svc);
    // Slices of an address type the Service no longer has go.
    for (const s of existing) if (s.addressType !== addressType) await this.deleteSlice(ns, s);
    await this.reconcileAddressType(
      svc,
      addressType,
      endpoints,
      existing.filter((s) => s.addressType === addressType),
      sliceLabels(svc),
      triggerTime,
    );
  }

  private zoneOf(nodeName: string): string | undefined {
    const node = parseObject(this.storage.get(`/core/nodes/${nodeName}`)?.json);
    return labelsOf(node)[ZONE_LABEL];
  }

  private slicesOf(svc: WorkloadObject): Slice[] {
    const out: Slice[] = [];
    for (const s of this.storage.list(`${SLICE_PREFIX}${svc.metadata.namespace}/`)) {
      const o = parseObject(s.json);
      if (!o) continue;
      const labels = labelsOf(o);
      if (labels[SERVICE_NAME_LABEL] !== svc.metadata.name || labels[MANAGED_BY_LABEL] !== CONTROLLER_NAME) continue;
      const owner = (o.metadata.ownerReferences ?? []).find((r) => r.controller === true);
      out.push({
        name: o.metadata.name!,
        uid: o.metadata.uid!,
        resourceVersion: o.metadata.resourceVersion ?? '',
        addressType: typeof o.addressType === 'string' ? o.addressType : '',
        portsKey: portsKeyOf(Array.isArray(o.ports) ? o.ports : []),
        endpoints: Array.isArray(o.endpoints) ? o.endpoints.filter(isObject) : [],
        labels,
        ownerUid: owner?.uid,
      });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** reconcileByAddressType, simplified: keep placements, fill slices with room, then create. */
  private async reconcileAddressType(
    svc: WorkloadObject,
    addressType: string,
    desired: DesiredEndpoint[],
    existing: Slice[],
    labels: Record<string, string>,
    triggerTime: string | undefined,
  ): Promise<void> {
    const ns = svc.metadata.namespace!;
    // Endpoints grouped by the ports they offer.
    const byPorts = new Map<string, { ports: JsonObject[]; endpoints: Map<string, JsonObject> }>();
    for (const d of desired) {
      let g = byPorts.get(d.portsKey);
      if (!g) byPorts.set(d.portsKey, (g = { ports: d.ports, endpoints: new Map() }));
      g.endpoints.set(endpointKey(d.endpoint), d.endpoint);
    }
    const plans: Plan[] = [];
    const toDelete: Slice[] = [];
    for (const slice of existing) {
      const group = byPorts.get(slice.portsKey);
      // A slice some other Service owns (same name reused), or of a port set no endpoint offers.
      if (!group || slice.ownerUid !== svc.metadata.uid) {
        toDelete.push(slice);
        continue;
      }
      const kept: JsonObject[] = [];
      for (const ep of slice.endpoints) {
        const k = endpointKey(ep);
        const next = group.endpoints.get(k);
        if (!next) continue;
        kept.push(next);
        group.endpoints.delete(k);
      }
      if (kept.length === 0) toDelete.push(slice);
      else plans.push({ slice, endpoints: kept, changed: !semanticEqual(kept, slice.endpoints) });
    }
    // New endpoints fill slices with room, the ones being written anyway first.
    const creates: Array<{ ports: JsonObject[]; endpoints: JsonObject[] }> = [];
    for (const [portsKey, group] of byPorts) {
      const left = [...group.endpoints.values()];
      const candidates = plans
        .filter((p) => p.slice.portsKey === portsKey)
        .sort((a, b) => Number(b.changed) - Number(a.changed));
      for (const p of candidates) {
        while (left.length > 0 && p.endpoints.length < MAX_ENDPOINTS_PER_SLICE) {
          p.endpoints.push(left.shift()!);
          p.changed = true;
        }
      }
      for (let i = 0; i < left.length; i += MAX_ENDPOINTS_PER_SLICE)
        creates.push({ ports: group.ports, endpoints: left.slice(i, i + MAX_ENDPOINTS_PER_SLICE) });
    }
    // No endpoint at all: one placeholder slice (no endpoints, no ports), kept if it exists.
    if (plans.length === 0 && creates.length === 0) {
      const placeholder = toDelete.findIndex(
        (s) => s.endpoints.length === 0 && s.portsKey === portsKeyOf([]) && s.ownerUid === svc.metadata.uid,
      );
      if (placeholder >= 0) plans.push({ slice: toDelete.splice(placeholder, 1)[0], endpoints: [], changed: false });
      else creates.push({ ports: [], endpoints: [] });
    }
    for (const s of toDelete) await this.deleteSlice(ns, s);
    for (const p of plans) {
      if (!p.changed && semanticEqual(p.slice.labels, labels)) continue;
      await this.updateSlice(ns, p, labels, triggerTime);
    }
    for (const c of creates) await this.createSlice(svc, addressType, c.ports, c.endpoints, labels, triggerTime);
  }

  private async createSlice(
    svc: WorkloadObject,
    addressType: string,
    ports: JsonObject[],
    endpoints: JsonObject[],
    labels: Record<string, string>,
    triggerTime: string | undefined,
  ): Promise<void> {
    const metadata: ObjectMeta = {
      generateName: `${svc.metadata.name}-`,
      namespace: svc.metadata.namespace!,
      labels,
      ownerReferences: [ownerRefTo('Service', svc, 'v1')],
    };
    if (triggerTime) metadata.annotations = { [TRIGGER_TIME_ANNOTATION]: triggerTime };
    const body = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: metadata as JsonObject,
      addressType,
      endpoints,
      ports,
    };
    try {
      await this.store.create(this.slicesDef, svc.metadata.namespace, body, ctx);
    } catch (e) {
      if (isNamespaceTerminating(e)) return;
      throw e;
    }
  }

  private async updateSlice(
    ns: string,
    plan: Plan,
    labels: Record<string, string>,
    triggerTime: string | undefined,
  ): Promise<void> {
    const { slice } = plan;
    await this.store.updateWith(this.slicesDef, ns, slice.name, ctx, (fresh) => {
      const m = fresh.metadata as ObjectMeta;
      if (m.resourceVersion !== slice.resourceVersion) {
        this.loop.add(`${ns}/${labels[SERVICE_NAME_LABEL]}`);
        return undefined;
      }
      m.labels = labels;
      const annotations: Record<string, string> = { ...(m.annotations ?? {}) };
      if (triggerTime) annotations[TRIGGER_TIME_ANNOTATION] = triggerTime;
      else delete annotations[TRIGGER_TIME_ANNOTATION];
      if (Object.keys(annotations).length > 0) m.annotations = annotations;
      else delete m.annotations;
      fresh.endpoints = plan.endpoints;
      return fresh;
    });
  }

  private async deleteSlice(ns: string, slice: Slice): Promise<void> {
    await deleteExactly(this.store, this.slicesDef, { namespace: ns, name: slice.name, uid: slice.uid }, ctx);
  }
}
