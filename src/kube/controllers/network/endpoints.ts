// The Endpoints controller (pkg/controller/endpoint/endpoints_controller.go): every Service with a
// selector gets an Endpoints object of its name listing the selected pods that have an IP and are
// not terminal — Ready ones (all with publishNotReadyAddresses) in `addresses`, the others in
// `notReadyAddresses`, terminating ones left out unless publishNotReadyAddresses — with the
// ports their targetPorts resolve to. Labels are the Service's (plus the headless label), and the
// last-change-trigger-time annotation says when the change behind the write happened. Services
// without a selector keep hand-written Endpoints; a deleted Service's Endpoints are deleted.
import { isPodReady } from '../../../apimachinery/core/index.ts';
import { semanticEqual } from '../../../apimachinery/json/index.ts';
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
  nsAndName,
  parseObject,
  type WorkloadObject,
} from '../workloads/common.ts';
import {
  HEADLESS_LABEL,
  SERVICE_PREFIX,
  TRIGGER_TIME_ANNOTATION,
  findPort,
  hostnameFor,
  isHeadless,
  managedSelector,
  podIpOf,
  podRef,
  selectedPods,
  serviceFamily,
  servicePorts,
  shouldPodBeInEndpoints,
} from './service-pods.ts';
import {
  addressCount,
  MAX_CAPACITY,
  repackSubsets,
  truncateSubsets,
  type AddressPort,
  type EndpointAddress,
  type EndpointSubset,
} from './subsets.ts';
import { ServiceRouting } from './service-routing.ts';
import { TriggerTimeTracker } from './trigger-time.ts';

const ENDPOINTS_PREFIX = '/core/endpoints/';
/** v1.EndpointsOverCapacity. */
const OVER_CAPACITY_ANNOTATION = 'endpoints.kubernetes.io/over-capacity';
/** resourcelock.LeaderElectionRecordAnnotationKey: leader-election Endpoints have no Service. */
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';
const COMPONENT = 'endpoint-controller';
const ctx = internalContext(COMPONENT);

export class EndpointsController extends ChangeDrivenController {
  private readonly endpointsDef: ResourceDef;
  private readonly triggerTimes = new TriggerTimeTracker();
  // A deleted Service is synced once more: its Endpoints go.
  private readonly routing = new ServiceRouting(this.storage, this.loop, this.triggerTimes, true);

  constructor(storage: Storage, store: ObjectStore, catalog: ResourceCatalog) {
    super(COMPONENT, storage, store, catalog);
    this.endpointsDef = catalog.lookup('', 'v1', 'endpoints')!;
  }

  override start(): void {
    super.start();
    // Kept storage: every Service is synced once, and Endpoints left without one are deleted
    // (checkLeftoverEndpoints).
    this.routing.enqueueAll();
    for (const s of this.storage.list(ENDPOINTS_PREFIX)) {
      const ep = parseObject(s.json);
      if (ep && !ep.metadata.annotations?.[LEADER_ANNOTATION]) this.loop.add(s.key.slice(ENDPOINTS_PREFIX.length));
    }
  }

  protected observe(c: Change): void {
    if (this.routing.observe(c)) return;
    if (c.key.startsWith(ENDPOINTS_PREFIX) && c.type === 'DELETED') {
      // Deleted by hand: put back (or left gone when the Service has no selector).
      this.loop.add(c.key.slice(ENDPOINTS_PREFIX.length));
    }
  }

  protected async process(key: string): Promise<void> {
    const [ns, name] = nsAndName(key);
    const svc = parseObject(this.storage.get(`${SERVICE_PREFIX}${key}`)?.json);
    if (!svc) {
      await this.deleteEndpoints(ns, name);
      return;
    }
    const selector = managedSelector(svc);
    if (!selector) return;
    const pods = selectedPods(this.storage, ns, selector);
    const triggerTime = this.triggerTimes.compute(key, svc, pods);
    const subsets = this.subsetsFor(svc, pods);

    const current = parseObject(this.storage.get(`${ENDPOINTS_PREFIX}${key}`)?.json);
    const serviceLabels = labelsOf(svc);
    if (current) {
      const currentLabels = { ...labelsOf(current) };
      delete currentLabels[HEADLESS_LABEL];
      const overCapacity = current.metadata.annotations?.[OVER_CAPACITY_ANNOTATION] !== undefined;
      if (
        semanticEqual(current.subsets, subsets) &&
        semanticEqual(currentLabels, serviceLabels) &&
        addressCount(subsets) <= MAX_CAPACITY &&
        !overCapacity
      )
        return;
    }
    const labels: Record<string, string> = { ...serviceLabels };
    if (isHeadless(svc)) labels[HEADLESS_LABEL] = '';
    else delete labels[HEADLESS_LABEL];
    const annotations: Record<string, string> = { ...(current?.metadata.annotations ?? {}) };
    if (triggerTime) annotations[TRIGGER_TIME_ANNOTATION] = triggerTime;
    else delete annotations[TRIGGER_TIME_ANNOTATION];
    if (truncateSubsets(subsets)) annotations[OVER_CAPACITY_ANNOTATION] = 'truncated';
    else delete annotations[OVER_CAPACITY_ANNOTATION];
    if (!current) {
      await this.createEndpoints(ns, name, labels, annotations, subsets);
      return;
    }
    const rv = current.metadata.resourceVersion;
    await this.store.updateWith(this.endpointsDef, ns, name, ctx, (fresh) => {
      const m = fresh.metadata as ObjectMeta;
      // Written since we read it: that write queued nothing, so look again.
      if (m.resourceVersion !== rv) {
        this.loop.add(key);
        return undefined;
      }
      m.labels = labels;
      if (Object.keys(annotations).length > 0) m.annotations = annotations;
      else delete m.annotations;
      if (subsets.length > 0) fresh.subsets = subsets;
      else delete fresh.subsets;
      return fresh;
    });
  }

  private subsetsFor(svc: WorkloadObject, pods: WorkloadObject[]): EndpointSubset[] {
    const publishNotReady = svc.spec.publishNotReadyAddresses === true;
    const family = serviceFamily(svc);
    const ports = servicePorts(svc);
    const pairs: AddressPort[] = [];
    for (const pod of pods) {
      if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
      const ip = podIpOf(pod, family);
      if (!ip) continue;
      const address: EndpointAddress = { ip };
      const hostname = hostnameFor(pod, svc);
      if (hostname) address.hostname = hostname;
      if (typeof pod.spec.nodeName === 'string' && pod.spec.nodeName) address.nodeName = pod.spec.nodeName;
      address.targetRef = podRef(pod);
      const ready = publishNotReady || isPodReady(pod);
      // A headless Service without ports still lists its pods.
      if (ports.length === 0) {
        if (isHeadless(svc)) pairs.push({ address, ready });
        continue;
      }
      for (const sp of ports) {
        const port = findPort(pod, sp);
        if (port === undefined) continue;
        const epPort = {
          name: sp.name,
          port,
          protocol: sp.protocol,
          ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}),
        };
        pairs.push({ address, ready, port: epPort });
      }
    }
    return repackSubsets(pairs);
  }

  private async createEndpoints(
    ns: string,
    name: string,
    labels: Record<string, string>,
    annotations: Record<string, string>,
    subsets: EndpointSubset[],
  ): Promise<void> {
    const metadata: JsonObject = { name, labels };
    if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
    const body: JsonObject = { apiVersion: 'v1', kind: 'Endpoints', metadata };
    if (subsets.length > 0) body.subsets = subsets;
    try {
      await this.store.create(this.endpointsDef, ns, body, ctx);
    } catch (e) {
      // The namespace is going away: creates keep failing, so the item is dropped.
      if (isNamespaceTerminating(e)) return;
      throw e;
    }
  }

  private async deleteEndpoints(ns: string, name: string): Promise<void> {
    const stored = parseObject(this.storage.get(`${ENDPOINTS_PREFIX}${ns}/${name}`)?.json);
    if (!stored) return;
    await deleteExactly(this.store, this.endpointsDef, { namespace: ns, name, uid: stored.metadata.uid }, ctx);
  }
}
